import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/core/database/index.js';
import { createSecretBox } from '../../src/core/kernel/secret-box.js';
import { migrations } from '../../migrations/index.js';
import { Sandbox } from './till.js';

const sandboxes: Sandbox[] = [];
afterAll(() => {
  for (const created of sandboxes) created.cleanup();
});

// Stays on SQLite files whatever TILL_TEST_DATABASE_URL says: it is about the command, not the dialect.
describe('till migrate', () => {
  it('applies every migration to a fresh SQLite file, then nothing on a second run', async () => {
    const cli = new Sandbox();
    sandboxes.push(cli);
    const file = join(cli.root, 'x.db');
    const env = { TILL_DATABASE_URL: `sqlite:${file}`, TILL_DATA_DIR: join(cli.root, 'data') };

    const first = await cli.run(['migrate', '--json'], { env });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.json).toEqual({
      database: `sqlite:${file}`,
      dialect: 'sqlite',
      applied: migrations.map((migration) => migration.name),
    });

    const db = createDb(`sqlite:${file}`);
    try {
      expect(await db.schema.hasTable('users')).toBe(true);
    } finally {
      await db.destroy();
    }

    const second = await cli.run(['migrate', '--json'], { env });
    expect(second.exitCode, second.stderr).toBe(0);
    expect(second.json.applied).toEqual([]);

    const human = await cli.run(['migrate'], { env });
    expect(human.exitCode).toBe(0);
    expect(human.stderr).toContain('up to date');
    // Migrating needs no secret, so none was generated.
    expect(existsSync(join(cli.root, 'data', 'secret'))).toBe(false);
  });

  it('seals answers an earlier version stored in plain text with TILL_SECRET, and will not go on without it', async () => {
    const cli = new Sandbox();
    sandboxes.push(cli);
    const file = join(cli.root, 'z.db');
    const env = { TILL_DATABASE_URL: `sqlite:${file}`, TILL_DATA_DIR: join(cli.root, 'data') };
    expect((await cli.run(['migrate'], { env })).exitCode).toBe(0);
    // The database as the previous version left it: the migration not yet applied, an answer in plain text.
    const db = createDb(`sqlite:${file}`);
    try {
      await db('knex_migrations').where({ name: '20261122000000_secrets_at_rest' }).del();
      await db('idempotency_keys').insert({
        principal: 'oat:00000000-0000-0000-0000-000000000000',
        key: 'k',
        method: 'POST',
        path: '/v1/organization-access-tokens/',
        request_hash: '0'.repeat(64),
        response_status: 201,
        response_body: '{"token":"till_oat_plain"}',
        created_at: new Date(),
        expires_at: new Date(Date.now() + 3_600_000),
      });
    } finally {
      await db.destroy();
    }

    const refused = await cli.run(['migrate'], { env });
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain("must be sealed with the daemon's secret");
    expect(existsSync(join(cli.root, 'data', 'secret'))).toBe(false);

    const secret = 'cli-test-secret-that-is-long-enough-0123456789';
    const sealed = await cli.run(['migrate', '--json'], { env: { ...env, TILL_SECRET: secret } });
    expect(sealed.exitCode, sealed.stderr).toBe(0);
    expect(sealed.json.applied).toEqual(['20261122000000_secrets_at_rest']);
    const after = createDb(`sqlite:${file}`);
    try {
      const row = await after('idempotency_keys').where({ key: 'k' }).first();
      expect(row.response_body).toMatch(/^v1\./);
      const context = `idempotency_keys:${JSON.stringify([row.principal, 'k'])}`;
      expect(createSecretBox(secret).open(row.response_body, context)).toBe('{"token":"till_oat_plain"}');
    } finally {
      await after.destroy();
    }
  });

  it('reports invalid settings as a usage error (exit 2)', async () => {
    const cli = new Sandbox();
    sandboxes.push(cli);
    const result = await cli.run(['migrate'], {
      env: { TILL_DATABASE_URL: `sqlite:${join(cli.root, 'y.db')}`, TILL_LOG_LEVEL: 'loud' },
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('TILL_LOG_LEVEL');
  });
});
