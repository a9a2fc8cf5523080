import type { Knex } from 'knex';
import { migrations } from '../../../migrations/index.js';
import type { Db } from './db.js';

const source: Knex.MigrationSource<{ name: string; module: Knex.Migration }> = {
  getMigrations: async () => migrations,
  getMigrationName: (migration) => migration.name,
  getMigration: async (migration) => migration.module,
};

const CONFIG = { migrationSource: source, tableName: 'knex_migrations' };

/** Applies pending migrations; returns the names applied now. Safe to run from several daemons at once (knex locks). */
export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = (await db.migrate.latest(CONFIG)) as [number, string[]];
  return applied;
}

export async function pendingMigrations(db: Db): Promise<string[]> {
  const [, pending] = (await db.migrate.list(CONFIG)) as [unknown, Array<{ name: string } | string>];
  return pending.map((entry) => (typeof entry === 'string' ? entry : entry.name));
}
