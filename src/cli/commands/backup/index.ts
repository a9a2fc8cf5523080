import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

export function registerBackupCommands(program: Command): void {
  withJson(
    program
      .command('backup')
      .description("copy a running daemon's SQLite database to a file, without stopping it (admin token)")
      .argument('<file>', 'where to write the copy; must not exist yet'),
  )
    .addHelpText(
      'after',
      `
The daemon makes a consistent copy (SQLite's VACUUM INTO) while it keeps serving, and sends it; reach it with
--url or TILL_URL, and the admin token (see \`till admin token --help\`). On PostgreSQL use pg_dump instead:
  pg_dump --format=custom --file=till.dump "$TILL_DATABASE_URL"
  pg_restore --clean --if-exists --no-owner --dbname="$TILL_DATABASE_URL" till.dump`,
    )
    .action(lazy(async () => (await import('./backup.js')).run));

  withJson(
    program
      .command('restore')
      .description("put a backup in place of the daemon's SQLite database (the daemon must be stopped)")
      .argument('<file>', 'a file made by `till backup`'),
  )
    .addHelpText(
      'after',
      `
Uses the daemon's settings (TILL_DATA_DIR, TILL_DATABASE_URL). Refuses while a daemon holds the database, and
refuses a file that is not a Till database or was written by a newer Till. The database it replaces is kept beside
it as <name>.before-restore-<time>.`,
    )
    .action(lazy(async () => (await import('./restore.js')).run));
}
