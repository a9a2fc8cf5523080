import type { Knex } from 'knex';

// Orders, subscriptions and customers are read in (created_at, id) order by the CSV exports, a keyset batch at a
// time (src/core/exports). With id in the index after created_at, each batch is one range of it on both databases,
// already in order: the (organization_id, created_at) index it replaces left the id to a sort of every row from the
// cursor on (PostgreSQL, with stale statistics, sorted all the rest of the organization's rows on every batch). The
// wider index still serves every query the narrower one did, so it replaces it rather than adding a second.
const TABLES = ['orders', 'subscriptions', 'customers'] as const;

export async function up(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.schema.alterTable(table, (t) => {
      t.index(['organization_id', 'created_at', 'id']);
    });
    await knex.schema.alterTable(table, (t) => {
      t.dropIndex(['organization_id', 'created_at']);
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.schema.alterTable(table, (t) => {
      t.index(['organization_id', 'created_at']);
    });
    await knex.schema.alterTable(table, (t) => {
      t.dropIndex(['organization_id', 'created_at', 'id']);
    });
  }
}
