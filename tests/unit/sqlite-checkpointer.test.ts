import { existsSync, statSync } from 'node:fs';
import sqlite3 from 'sqlite3';
import { describe, expect, it } from 'vitest';
import { createDb, DatabaseLockedError } from '../../src/core/database/index.js';
import { holdFile, lockFileOf, startCheckpointer } from '../../src/core/database/sqlite/checkpointer.js';
import { useScratchSqlite } from '../helpers/scratch-sqlite.js';

const scratch = useScratchSqlite();

function run(db: InstanceType<typeof sqlite3.Database>, sql: string): Promise<void> {
  return new Promise((resolve, reject) => db.exec(sql, (error) => (error ? reject(error) : resolve())));
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((resolve) => setTimeout(resolve, 50)))
    if (check()) return true;
  return check();
}

describe("the daemon's SQLite file", () => {
  it('is held by one holder at a time, until it lets go', async () => {
    const file = scratch.path();
    const release = await holdFile(file);
    expect(release).not.toBeNull();
    expect(existsSync(lockFileOf(file))).toBe(true);
    expect(existsSync(`${lockFileOf(file)}-journal`)).toBe(false);
    expect(await holdFile(file)).toBeNull();
    await release!();
    const again = await holdFile(file);
    expect(again).not.toBeNull();
    await again!();
  });

  it('refuses a second exclusive opening with DatabaseLockedError, and takes it once the first is closed', async () => {
    const url = `sqlite:${scratch.path()}`;
    const first = createDb(url, { exclusive: true });
    await first.raw('SELECT 1');
    const second = createDb(url, { exclusive: true });
    const refused = await second.raw('SELECT 1').then(
      () => null,
      (error: unknown) => error,
    );
    let cause: unknown = refused;
    while (cause && !(cause instanceof DatabaseLockedError)) cause = (cause as { cause?: unknown }).cause;
    expect(cause).toBeInstanceOf(DatabaseLockedError);
    await second.destroy();
    await first.destroy();
    const third = createDb(url, { exclusive: true });
    await expect(third.raw('SELECT 1')).resolves.toBeDefined();
    await third.destroy();
  });

  it('has what the WAL holds copied into it in the background, while the writer never checkpoints', async () => {
    const file = scratch.path();
    const writer = await new Promise<InstanceType<typeof sqlite3.Database>>((resolve, reject) => {
      const db = new sqlite3.Database(file, (error) => (error ? reject(error) : resolve(db)));
    });
    try {
      await run(writer, 'PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE pages (body TEXT)');
      await run(writer, `INSERT INTO pages SELECT hex(randomblob(2000)) FROM generate_series(1, 500)`).catch(
        async () => {
          // Builds without the series extension: the same rows by a recursive CTE.
          await run(
            writer,
            `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
             INSERT INTO pages SELECT hex(randomblob(2000)) FROM n`,
          );
        },
      );
      // About 2 MB written, all of it still in the WAL: the database file holds only its first pages.
      expect(statSync(`${file}-wal`).size).toBeGreaterThan(1_000_000);
      expect(statSync(file).size).toBeLessThan(100_000);
      const stop = await startCheckpointer(file);
      try {
        expect(await until(() => statSync(file).size > 1_000_000, 5_000)).toBe(true);
      } finally {
        await stop();
      }
    } finally {
      await new Promise((resolve) => writer.close(resolve));
    }
  });
});
