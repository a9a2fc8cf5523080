import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

export function registerMigrateCommand(program: Command): void {
  withJson(program.command('migrate').description('apply pending database migrations to the configured database'))
    .addHelpText(
      'after',
      `
Uses the daemon's settings: TILL_DATABASE_URL (postgres://... or sqlite:<path>; default the SQLite file in
TILL_DATA_DIR). The daemon migrates on start as well; this command is for deploys that migrate first. On SQLite
it refuses to run while a daemon holds the database file.`,
    )
    .action(lazy(async () => (await import('./migrate.js')).run));
}
