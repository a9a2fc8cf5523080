import { loadConfig } from '../../../core/config/index.js';
import { createDb, dialectOf, sqlitePath } from '../../../core/database/index.js';
import { migrateLatest } from '../../../core/database/index.js';
import type { Invocation } from '../../action.js';
import { info, printJson, printLine } from '../../output.js';

/** Where the migrations went, without the password a PostgreSQL URL may carry. */
function describeDatabase(url: string): string {
  if (dialectOf(url) === 'sqlite') return `sqlite:${sqlitePath(url)}`;
  const parsed = new URL(url);
  parsed.password = '';
  return parsed.toString();
}

export async function run({ opts }: Invocation<{ json?: boolean }>): Promise<void> {
  // Migrations need no secret; passing one keeps loadConfig from generating the embedded setup's secret file.
  const config = loadConfig(process.env, { secret: 'not-needed-to-migrate' });
  // Exclusive on SQLite, so a running daemon's file is refused at once (DatabaseLockedError) instead of waited on.
  const db = createDb(config.databaseUrl, { exclusive: true });
  let applied: string[];
  try {
    applied = await migrateLatest(db);
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
