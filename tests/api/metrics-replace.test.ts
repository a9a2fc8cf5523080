import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { dialect, finishWith, transaction } from '../../src/core/database/index.js';
import type { DeltaRow, MetricValues } from '../../src/core/metrics/contributions.js';
import { deferApplyDeltas } from '../../src/core/metrics/repository.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { createMerchant } from '../helpers/v1.js';

// The rollups' replace step (metrics/repository.ts) writes a bucket only where a change moves it, and splits the
// sources it replaces over several statements past SOURCES_PER_STATEMENT (5,000). Checked against sums of the
// source rows, at both levels.

const daemon = useTestDaemon();
const HOUR = 493_000; // hours since the epoch; this hour and the next fall on the same day

function rowsFor(organizationId: string, sources: string[], values: (i: number) => MetricValues, hour = HOUR) {
  return sources.map((sourceId, i): DeltaRow => ({
    sourceId,
    organizationId,
    customerId: `c${i}`,
    currency: 'usd',
    productId: 'p',
    billingType: 'recurring',
    hour,
    values: values(i),
  }));
}

async function apply(replacing: string[], rows: DeltaRow[], countOnly: DeltaRow[] = []) {
  await transaction(daemon().core.db, (trx) => finishWith(trx, ...deferApplyDeltas(trx, replacing, rows, countOnly)));
}

async function bucket(table: 'metrics_buckets' | 'metrics_days', organizationId: string) {
  return (await daemon()
    .core.db(table)
    .where({ organization_id: organizationId })
    .orderBy(table === 'metrics_buckets' ? 'hour' : 'day')
    .select(
      table === 'metrics_buckets' ? 'hour as at' : 'day as at',
      'active_subscriptions',
      'monthly_recurring_revenue',
      'checkouts',
    )) as Array<Record<string, number>>;
}

const numbers = (rows: Array<Record<string, number>>) =>
  rows.map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, Number(value)])));

describe('replacing metrics contributions', () => {
  it('moves the buckets by the change alone, over more sources than one statement names', async () => {
    const merchant = await createMerchant(daemon());
    const organizationId = merchant.organization.id;
    const sources = Array.from({ length: 5_003 }, () => randomUUID());
    await apply(
      [],
      rowsFor(organizationId, sources, () => ({ active_subscriptions: 1, monthly_recurring_revenue: 100 })),
    );
    const day = Math.floor(HOUR / 24);
    expect(numbers(await bucket('metrics_buckets', organizationId))).toEqual([
      { at: HOUR, active_subscriptions: 5_003, monthly_recurring_revenue: 500_300, checkouts: 0 },
    ]);

    // Every source replaced: the first unchanged, the last moved an hour on with more revenue, a checkout counted.
    const moved = rowsFor(organizationId, sources, (i) => ({
      active_subscriptions: 1,
      monthly_recurring_revenue: i === sources.length - 1 ? 250 : 100,
    })).map((row, i) => (i === sources.length - 1 ? { ...row, hour: HOUR + 1 } : row));
    const checkout = { ...rowsFor(organizationId, [randomUUID()], () => ({ checkouts: 1 }))[0]!, customerId: '' };
    await apply(sources, moved, [checkout]);
    expect(numbers(await bucket('metrics_buckets', organizationId))).toEqual([
      { at: HOUR, active_subscriptions: 5_002, monthly_recurring_revenue: 500_200, checkouts: 1 },
      { at: HOUR + 1, active_subscriptions: 1, monthly_recurring_revenue: 250, checkouts: 0 },
    ]);
    expect(numbers(await bucket('metrics_days', organizationId))).toEqual([
      { at: day, active_subscriptions: 5_003, monthly_recurring_revenue: 500_450, checkouts: 1 },
    ]);
    const stored = await daemon()
      .core.db('metrics_source_deltas')
      .where({ organization_id: organizationId })
      .count({ n: '*' })
      .sum({ mrr: 'monthly_recurring_revenue' });
    expect(stored.map((row) => [Number(row.n), Number(row.mrr)])).toEqual([[5_003, 500_450]]);
  });

  it('leaves a bucket unwritten when the sources contribute what they did', async () => {
    const merchant = await createMerchant(daemon());
    const organizationId = merchant.organization.id;
    const sources = [randomUUID(), randomUUID()];
    const rows = rowsFor(organizationId, sources, () => ({ active_subscriptions: 1, monthly_recurring_revenue: 100 }));
    await apply([], rows);
    const version = () =>
      dialect(daemon().core.db) === 'postgres'
        ? daemon().core.db.raw('SELECT xmin::text AS v FROM metrics_buckets WHERE organization_id = ?', [
            organizationId,
          ])
        : null;
    const before = await version();
    await apply(sources, rows);
    expect(numbers(await bucket('metrics_buckets', organizationId))).toEqual([
      { at: HOUR, active_subscriptions: 2, monthly_recurring_revenue: 200, checkouts: 0 },
    ]);
    // PostgreSQL writes a new row version on every update: the same one means no statement touched the bucket.
    if (before) expect((await version())!.rows).toEqual(before.rows);
  });
});
