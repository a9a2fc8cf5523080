import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, type TillConfig } from '../../../core/config/index.js';
import { createDb, dialectOf, sqlitePath, type MigrationContext } from '../../../core/database/index.js';
import { migrateLatest } from '../../../core/database/index.js';
import { createSecretBox } from '../../../core/kernel/secret-box.js';
import { rebuildRollups } from '../../../core/metrics/rollups.js';
import type { Invocation } from '../../action.js';
import { info, printJson, printLine } from '../../output.js';

/** Where the migrations went, without the password a PostgreSQL URL may carry. */
function describeDatabase(url: string): string {
  if (dialectOf(url) === 'sqlite') return `sqlite:${sqlitePath(url)}`;
  const parsed = new URL(url);
  parsed.password = '';
  return parsed.toString();
}

/**
 * The daemon's secret, when there is one to take: a migration that seals values earlier versions kept in plain text
 * needs it (and says so when it is missing). A new secret is never generated here: nothing was sealed under it.
 */
function migrationContext(config: TillConfig): MigrationContext {
  const stored = dialectOf(config.databaseUrl) === 'sqlite' && existsSync(join(config.dataDir, 'secret'));
  if (!process.env.TILL_SECRET && !stored) return { rebuildMetrics: rebuildRollups };
  const box = createSecretBox(loadConfig(process.env).secret);
  return { seal: (plaintext, context) => box.seal(plaintext, context), rebuildMetrics: rebuildRollups };
}

export async function run({ opts }: Invocation<{ json?: boolean }>): Promise<void> {
  // Migrating needs no cookie secret, and passing one keeps loadConfig from generating the embedded setup's secret
  // file; migrationContext reads the real secret when one exists, for the migrations that seal values.
  const config = loadConfig(process.env, { secret: 'not-needed-to-migrate' });
  const context = migrationContext(config);
  // Exclusive on SQLite, so a running daemon's file is refused at once (DatabaseLockedError) instead of waited on.
  const db = createDb(config.databaseUrl, { exclusive: true });
  let applied: string[];
  try {
    applied = await migrateLatest(db, context);
  } finally {
    await db.destroy();
  }
  const database = describeDatabase(config.databaseUrl);
  if (opts.json) {
    printJson({ database, dialect: dialectOf(config.databaseUrl), applied });
    return;
  }
  if (applied.length === 0) info(`${database} is up to date; no migrations to apply`);
  else {
    info(`Applied ${applied.length} migration${applied.length === 1 ? '' : 's'} to ${database}:`);
    for (const name of applied) printLine(name);
  }
}
