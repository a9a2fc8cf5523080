import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/**
 * A fresh, empty database for one test daemon: a SQLite file in a temporary folder, or, when
 * TILL_TEST_DATABASE_URL points at PostgreSQL, a new database on that server. `drop` removes it.
 */
export interface TestDatabase {
  url: string;
  dialect: 'sqlite' | 'postgres';
  drop(): Promise<void>;
}

export const testDatabaseUrl = process.env.TILL_TEST_DATABASE_URL ?? '';
export const testDialect: 'sqlite' | 'postgres' = testDatabaseUrl.startsWith('postgres') ? 'postgres' : 'sqlite';

export async function createTestDatabase(): Promise<TestDatabase> {
  if (testDialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'till-test-'));
    return {
      url: `sqlite:${join(dir, 'till.db')}`,
      dialect: 'sqlite',
      async drop() {
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const name = `till_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: testDatabaseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(testDatabaseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    dialect: 'postgres',
    async drop() {
      const client = new pg.Client({ connectionString: testDatabaseUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
