import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { createDb, type Db } from '../../src/core/database/index.js';

/**
 * SQLite files for tests of the connection itself, opened as the daemon opens them, each with an `items` table
 * (id, unique name, count); closed and removed after each test. `path()` gives a fresh file name for a test that opens
 * the file its own way.
 */
export function useScratchSqlite() {
  const dirs: string[] = [];
  const dbs: Db[] = [];
  afterEach(async () => {
    await Promise.all(dbs.splice(0).map((db) => db.destroy()));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function path(): string {
    const dir = mkdtempSync(join(tmpdir(), 'till-sqlite-'));
    dirs.push(dir);
    return join(dir, 'till.sqlite');
  }

  async function freshDb(): Promise<Db> {
    const db = createDb(`sqlite:${path()}`, { exclusive: true });
    dbs.push(db);
    await db.schema.createTable('items', (t) => {
      t.increments('id');
      t.string('name').notNullable().unique();
      t.integer('count').notNullable().defaultTo(0);
    });
    return db;
  }

  return { freshDb, path };
}
