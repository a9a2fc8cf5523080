import type { Db } from '../database/index.js';
import { dialect, epochHoursSql } from '../database/index.js';
import { METRIC_COLUMNS } from './contributions.js';

// The rebuild's set-based statements: what orders and checkouts contribute, computed by the database over a whole
// organization at once (a million orders are one statement, not a million rows through JavaScript). Each mirrors its
// rule in contributions.ts (orderDeltas, checkoutDelta), which the live rollups use; the property test of the
// metrics compares the two.

const PAID = `('paid', 'refunded', 'partially_refunded')`;
const sumsOf = (columns: readonly string[]) => columns.map((column) => `SUM(${column})`).join(', ');

/** orderDeltas for every paid order of the organization, as source rows. */
export async function insertOrderDeltas(trx: Db, organizationId: string): Promise<void> {
  const hour = epochHoursSql(dialect(trx), 'created_at');
  const when = (condition: string, value: string) => `CASE WHEN ${condition} THEN ${value} ELSE 0 END`;
  const oneTime = `billing_reason = 'purchase' AND subscription_id IS NULL`;
  const created = `billing_reason = 'subscription_create'`;
  const cycle = `billing_reason = 'subscription_cycle'`;
  const net = 'net_amount - refunded_amount';
  await trx.raw(
    `INSERT INTO metrics_source_deltas (source_id, customer_id, organization_id, currency, hour, product_id, ` +
      `billing_type, orders, revenue, net_revenue, one_time_products, one_time_products_revenue, ` +
      `one_time_products_net_revenue, new_subscriptions, new_subscriptions_revenue, new_subscriptions_net_revenue, ` +
      `renewed_subscriptions, renewed_subscriptions_revenue, renewed_subscriptions_net_revenue) ` +
      `SELECT id, customer_id, organization_id, LOWER(currency), ${hour}, COALESCE(CAST(product_id AS VARCHAR(36)), ''), ` +
      `CASE WHEN subscription_id IS NULL THEN 'one_time' ELSE 'recurring' END, 1, net_amount, ${net}, ` +
      `${when(oneTime, '1')}, ${when(oneTime, 'net_amount')}, ${when(oneTime, net)}, ` +
      `${when(created, '1')}, ${when(created, 'net_amount')}, ${when(created, net)}, ` +
      `${when(cycle, '1')}, ${when(cycle, 'net_amount')}, ${when(cycle, net)} ` +
      `FROM orders WHERE organization_id = ? AND status IN ${PAID}`,
    [organizationId],
  );
}

/** The hourly buckets as the sums of the organization's source rows (the buckets start empty). */
export async function bucketsFromSourceDeltas(trx: Db, organizationId: string): Promise<void> {
  const key = 'organization_id, currency, hour, product_id, billing_type';
  await trx.raw(
    `INSERT INTO metrics_buckets (${key}, ${METRIC_COLUMNS.join(', ')}) SELECT ${key}, ${sumsOf(METRIC_COLUMNS)} ` +
      `FROM metrics_source_deltas WHERE organization_id = ? GROUP BY ${key}`,
    [organizationId],
  );
}

/** checkoutDelta for every checkout of the organization (created, and succeeded), added to the hourly buckets. */
export async function addCheckoutsToBuckets(trx: Db, organizationId: string): Promise<void> {
  const hour = epochHoursSql(dialect(trx), 'checkouts.created_at');
  const billing = `CASE WHEN products.recurring_interval IS NULL THEN 'one_time' ELSE 'recurring' END`;
  const key = `checkouts.organization_id, LOWER(checkouts.currency), ${hour}, checkouts.product_id, ${billing}`;
  await trx.raw(
    `INSERT INTO metrics_buckets (organization_id, currency, hour, product_id, billing_type, checkouts, ` +
      `succeeded_checkouts) SELECT ${key}, COUNT(*), SUM(CASE WHEN checkouts.status = 'succeeded' THEN 1 ELSE 0 END) ` +
      `FROM checkouts LEFT JOIN products ON products.id = checkouts.product_id ` +
      `WHERE checkouts.organization_id = ? GROUP BY ${key} ` +
      `ON CONFLICT (organization_id, currency, hour, product_id, billing_type) DO UPDATE SET ` +
      `checkouts = metrics_buckets.checkouts + excluded.checkouts, ` +
      `succeeded_checkouts = metrics_buckets.succeeded_checkouts + excluded.succeeded_checkouts`,
    [organizationId],
  );
}

/** The daily buckets as the sums of the organization's hourly ones (the days start empty). */
export async function daysFromBuckets(trx: Db, organizationId: string): Promise<void> {
  const key = 'organization_id, currency, hour / 24, product_id, billing_type';
  await trx.raw(
    `INSERT INTO metrics_days (organization_id, currency, day, product_id, billing_type, ` +
      `${METRIC_COLUMNS.join(', ')}) SELECT ${key}, ${sumsOf(METRIC_COLUMNS)} ` +
      `FROM metrics_buckets WHERE organization_id = ? GROUP BY ${key}`,
    [organizationId],
  );
}
