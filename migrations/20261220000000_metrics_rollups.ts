import type { Knex } from 'knex';
import type { MigrationContext } from './index.js';

// Metrics rollups (src/core/metrics): deltas per UTC hour (and per UTC day) and organization, currency, product and billing type, kept
// in the transaction of each change, so a metrics query sums hours instead of scanning orders. `metrics_source_deltas`
// holds what each order and subscription contributed, so a later change to it can take that back first; it
// also answers queries filtered by customer. Existing data is folded in by rebuilding every organization's rollups
// with the rules of the code that runs the migration, the ones it keeps the rollups by afterwards.

const METRIC_COLUMNS = [
  'orders',
  'revenue',
  'net_revenue',
  'one_time_products',
  'one_time_products_revenue',
  'one_time_products_net_revenue',
  'new_subscriptions',
  'new_subscriptions_revenue',
  'new_subscriptions_net_revenue',
  'renewed_subscriptions',
  'renewed_subscriptions_revenue',
  'renewed_subscriptions_net_revenue',
  'checkouts',
  'succeeded_checkouts',
  'canceled_subscriptions',
  'churned_subscriptions',
  'active_subscriptions',
  'committed_subscriptions',
  'monthly_recurring_revenue',
  'committed_monthly_recurring_revenue',
];

function keyColumns(t: Knex.CreateTableBuilder, time: string): void {
  t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
  t.string('currency', 3).notNullable();
  t.integer(time).notNullable();
  t.string('product_id', 36).notNullable();
  t.string('billing_type', 10).notNullable();
  for (const column of METRIC_COLUMNS) t.bigInteger(column).notNullable().defaultTo(0);
}

/** Buckets per UTC hour (`hour`: hours since the epoch) or per UTC day (`day`: days since the epoch). */
async function createBuckets(knex: Knex, table: string, time: string): Promise<void> {
  const key = ['organization_id', 'currency', time, 'product_id', 'billing_type'];
  if (knex.client.config.client === 'pg') {
    await knex.schema.createTable(table, (t) => {
      keyColumns(t, time);
      t.primary(key);
    });
    return;
  }
  // On SQLite the key is the table itself (WITHOUT ROWID): a query's range of hours is read in order from one b-tree,
  // instead of an index lookup and then a row lookup for every bucket.
  const metrics = METRIC_COLUMNS.map((column) => `${column} bigint NOT NULL DEFAULT 0`).join(', ');
  await knex.raw(
    `CREATE TABLE ${table} (organization_id varchar(32) NOT NULL REFERENCES organizations (id) ON DELETE CASCADE, ` +
      `currency varchar(3) NOT NULL, ${time} integer NOT NULL, product_id varchar(36) NOT NULL, ` +
      `billing_type varchar(10) NOT NULL, ${metrics}, PRIMARY KEY (${key.join(', ')})) WITHOUT ROWID`,
  );
}

export async function up(knex: Knex, context: MigrationContext): Promise<void> {
  await createBuckets(knex, 'metrics_buckets', 'hour');
  await createBuckets(knex, 'metrics_days', 'day');
  await knex.schema.createTable('metrics_source_deltas', (t) => {
    t.increments('id').primary();
    t.uuid('source_id').notNullable().index();
    t.string('customer_id', 36).notNullable();
    keyColumns(t, 'hour');
    t.index(['organization_id', 'customer_id', 'hour']);
  });
  const organizations = await knex('organizations').select<Array<{ id: string }>>('id');
  if (organizations.length === 0) return;
  // The rules live in src/core/metrics (which migrations do not import): the daemon and `till migrate` pass them in.
  const rebuild = context.rebuildMetrics;
  if (!rebuild)
    throw new Error('Existing orders need their metrics rollups built: migrate with the daemon or `till migrate`.');
  for (const { id } of organizations) await rebuild(knex, id);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('metrics_source_deltas');
  await knex.schema.dropTable('metrics_days');
  await knex.schema.dropTable('metrics_buckets');
}
