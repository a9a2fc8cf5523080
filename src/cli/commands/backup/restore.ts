import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { loadConfig } from '../../../core/config/index.js';
import {
  DatabaseLockedError,
  createDb,
  dialectOf,
  pendingMigrations,
  sqlitePath,
} from '../../../core/database/index.js';
import { migrations } from '../../../../migrations/index.js';
import type { Invocation } from '../../action.js';
import { CliError, UsageError } from '../../errors.js';
import { info, printJson } from '../../output.js';
import { daemonFiles, isDaemonProcess, readPid } from '../daemon/process.js';

/** Opens `file` and says what is wrong with it as a Till database, or null when it is one this Till can run. */
async function problemWith(file: string): Promise<string | null> {
  const db = createDb(`sqlite:${file}`);
  try {
    if (!(await db.schema.hasTable('knex_migrations'))) return 'it is not a Till database (no migrations table)';
    const pending = await pendingMigrations(db);
    if (pending.length === migrations.length) return 'it is not a Till database (no Till migration recorded)';
    return null;
  } catch (error) {
    const message = (error as Error).message;
    // Knex names recorded migrations it does not know: a newer Till wrote this file.
    if (/corrupt|missing/i.test(message)) return `it was written by a newer Till (${message})`;
    return `it cannot be read as an SQLite database (${message})`;
  } finally {
    await db.destroy();
  }
}

/** True when a daemon holds the database: SQLite's exclusive lock, which `till daemon run` takes, is refused. */
async function inUse(file: string): Promise<boolean> {
  if (!existsSync(file)) return false;
  const db = createDb(`sqlite:${file}`, { exclusive: true });
  try {
    await pendingMigrations(db);
    return false;
  } catch (error) {
    for (let current: unknown = error; current; current = (current as { cause?: unknown }).cause)
      if (current instanceof DatabaseLockedError) return true;
    throw error;
  } finally {
    await db.destroy();
  }
}

function moveIfPresent(from: string, to: string): void {
  if (existsSync(from)) renameSync(from, to);
}

export async function run({ args, opts }: Invocation<{ json?: boolean }>): Promise<void> {
  const source = resolve(String(args[0]));
  // Restoring needs no secret; passing one keeps loadConfig from generating the secret file.
  const config = loadConfig(process.env, { secret: 'not-needed-to-restore' });
  if (dialectOf(config.databaseUrl) !== 'sqlite')
    throw new UsageError(
      'TILL_DATABASE_URL points at PostgreSQL: restore with pg_restore --clean --if-exists --no-owner --dbname="$TILL_DATABASE_URL" <dump>',
    );
  const target = sqlitePath(config.databaseUrl);
  if (!existsSync(source)) throw new CliError(`${source} does not exist`);
  const pid = readPid(daemonFiles(config.dataDir).pidFile);
  if ((pid !== null && isDaemonProcess(pid)) || (await inUse(target)))
    throw new CliError(`a daemon is using ${target}; stop it first (till daemon stop)`);
  const problem = await problemWith(source);
  if (problem) throw new CliError(`${source} cannot be restored: ${problem}`);

  // Copied next to the target first, so the switch is two renames on one file system.
  const incoming = join(dirname(target), `.${basename(target)}.restoring`);
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
  copyFileSync(source, incoming);
  const kept = existsSync(target) ? `${target}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}` : null;
  if (kept) {
    renameSync(target, kept);
    // A journal left beside the old file belongs to it, never to the restored one.
    moveIfPresent(`${target}-wal`, `${kept}-wal`);
    moveIfPresent(`${target}-shm`, `${kept}-shm`);
  }
  rmSync(`${target}-journal`, { force: true });
  renameSync(incoming, target);
  if (opts.json) printJson({ restored: target, from: source, previous: kept });
  else info(`restored ${target} from ${source}${kept ? `; the previous database is kept as ${kept}` : ''}`);
}
