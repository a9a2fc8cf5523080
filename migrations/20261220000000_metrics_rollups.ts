import type { Knex } from 'knex';
import { rebuildRollups } from '../src/core/metrics/rollups.js';

// Metrics rollups (src/core/metrics): deltas per UTC hour and organization, currency, product and billing type, kept
// in the transaction of each change, so a metrics query sums hours instead of scanning orders. `metrics_source_deltas`
// holds what each order, subscription and checkout contributed, so a later change to it can take that back first; it
// also answers queries filtered by customer. Existing data is folded in by rebuilding every organization's rollups:
// with today's rules on purpose, since the rollups must agree with the rules the running code keeps them by.

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

function keyColumns(t: Knex.CreateTableBuilder): void {
  t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
  t.string('currency', 3).notNullable();
  t.integer('hour').notNullable();
  t.string('product_id', 36).notNullable();
  t.string('billing_type', 10).notNullable();
  for (const column of METRIC_COLUMNS) t.bigInteger(column).notNullable().defaultTo(0);
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('metrics_buckets', (t) => {
    keyColumns(t);
    t.primary(['organization_id', 'currency', 'hour', 'product_id', 'billing_type']);
  });
  await knex.schema.createTable('metrics_source_deltas', (t) => {
    t.increments('id').primary();
    t.uuid('source_id').notNullable().index();
    t.string('customer_id', 36).notNullable();
    keyColumns(t);
    t.index(['organization_id', 'customer_id', 'hour']);
  });
  const organizations = await knex('organizations').select<Array<{ id: string }>>('id');
  for (const { id } of organizations) await rebuildRollups(knex, id);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('metrics_source_deltas');
  await knex.schema.dropTable('metrics_buckets');
}
