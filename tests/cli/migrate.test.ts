import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/core/database/index.js';
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
