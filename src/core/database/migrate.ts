import type { Knex } from 'knex';
import { migrations, type MigrationContext, type TillMigration } from '../../../migrations/index.js';
import { dialect, type Db } from './connection.js';

export type { MigrationContext } from '../../../migrations/index.js';

/** Knex hands a migration only the database; the context (the secret box, when there is one) is bound in here. */
function migrationConfig(context: MigrationContext) {
  const source: Knex.MigrationSource<{ name: string; module: TillMigration }> = {
    getMigrations: async () => migrations,
    getMigrationName: (migration) => migration.name,
    getMigration: async ({ module }) => ({
      up: (knex: Knex) => module.up(knex, context),
      down: (knex: Knex) => module.down(knex),
    }),
  };
  return { migrationSource: source, tableName: 'knex_migrations' };
}

// Any constant shared by every Till daemon; it names the PostgreSQL advisory lock that serializes migrations.
const MIGRATION_LOCK_KEY = 7_174_110_001;

async function runLatest(db: Db, context: MigrationContext): Promise<string[]> {
  const config = migrationConfig(context);
  try {
    const [, applied] = (await db.migrate.latest(config)) as [number, string[]];
    return applied;
  } catch (error) {
    // Knex's own lock row is left set when a daemon died mid-migration. Whoever reaches this point holds the
    // advisory lock (or, on SQLite, the database file), so nobody else is migrating: the row is stale.
    if (!(error instanceof Error && /already locked/i.test(error.message))) throw error;
    await db.migrate.forceFreeMigrationsLock(config);
    const [, applied] = (await db.migrate.latest(config)) as [number, string[]];
    return applied;
  }
}

/**
 * Applies pending migrations; returns the names applied now. `context.seal` is the daemon's secret box, for the
 * migrations that seal values stored in plain text by earlier versions. Several daemons starting together on one
 * PostgreSQL all call this; a session-level advisory lock lets one migrate while the others wait, after which
 * they find nothing left to do. (Knex's lock table alone does not cover creating its own tables.)
 */
export async function migrateLatest(db: Db, context: MigrationContext = {}): Promise<string[]> {
  if (dialect(db) !== 'postgres') return runLatest(db, context);
  const connection = await db.client.acquireConnection();
  try {
    await connection.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      return await runLatest(db, context);
    } finally {
      await connection.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await db.client.releaseConnection(connection);
  }
}

export async function pendingMigrations(db: Db): Promise<string[]> {
  const [, pending] = (await db.migrate.list(migrationConfig({}))) as [unknown, Array<{ name: string } | string>];
  return pending.map((entry) => (typeof entry === 'string' ? entry : entry.name));
}
