#!/usr/bin/env node
// Metrics benchmark (issue 22): a three-year daily metrics query over 1,000,000 orders, on SQLite and PostgreSQL.
// Seeds an organization's history straight into the tables (multi-row INSERTs, seeded PRNG), folds it into the
// rollups with rebuildRollups, then times the query the API runs (queryMetrics, the service minus Polar's range
// limit, which caps a daily range at 366 days) 20 times: median and p99. Also times the API's largest daily range
// (366 days) and the same three years by day in Europe/Paris.
// `npm run build && node bench/metrics/run.mjs [--orders n] [--runs n] [--only sqlite,postgres] [--pg-url url]`
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { cleanup, createDatabase, log, makeTempDir } from '../auth/harness.mjs';
import { createDb, dialect as dialectOfDb, literalInsert, migrateLatest } from '../../dist/src/core/database/index.js';
import { rebuildRollups } from '../../dist/src/core/metrics/rollups.js';
import { queryMetrics } from '../../dist/src/core/metrics/service.js';

function options(argv) {
  const flags = { orders: 1_000_000, runs: 20, only: ['sqlite', 'postgres'], pgUrl: process.env.BENCH_PG_URL };
  for (let i = 0; i < argv.length; i++) {
    const next = () => argv[++i];
    if (argv[i] === '--orders') flags.orders = Number(next());
    else if (argv[i] === '--runs') flags.runs = Number(next());
    else if (argv[i] === '--only') flags.only = next().split(',');
    else if (argv[i] === '--pg-url') flags.pgUrl = next();
    else throw new Error(`unknown option ${argv[i]}`);
  }
  flags.pgUrl ??= 'postgres://postgres@127.0.0.1:5432/test';
  return flags;
}

function prng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const START = Date.parse('2023-11-01T00:00:00Z');
const END = Date.parse('2026-10-31T00:00:00Z');
// Rows per INSERT. SQLite: one statement of literal VALUES (database/bulk.ts' literalInsert, no placeholders to bind).
// PostgreSQL: one array per column, unnested (20 parameters for 20,000 rows instead of 400,000 placeholders).
const ROWS = { sqlite: 5_000, postgres: 20_000 };

async function insertAll(db, table, rows) {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]);
  const postgres = dialectOfDb(db) === 'postgres';
  const types = postgres ? await columnTypes(db, table) : null;
  const size = ROWS[postgres ? 'postgres' : 'sqlite'];
  for (let start = 0; start < rows.length; start += size) {
    const slice = rows.slice(start, start + size);
    if (postgres) {
      const arrays = columns.map((column) => slice.map((row) => row[column]));
      const unnest = columns.map((column) => `?::${types.get(column)}[]`).join(', ');
      const names = columns.map((column) => `"${column}"`).join(', ');
      await db.raw(`INSERT INTO "${table}" (${names}) SELECT * FROM unnest(${unnest})`, arrays);
    } else {
      const literal = literalInsert(
        db,
        table,
        columns,
        slice.map((row) => columns.map((column) => row[column])),
        '',
      );
      await (literal ?? db(table).insert(slice));
    }
  }
}

/** A PostgreSQL table's column types, for the casts of unnest's arrays. */
async function columnTypes(db, table) {
  const { rows } = await db.raw(
    `SELECT attname AS name, format_type(atttypid, atttypmod) AS type FROM pg_attribute
      WHERE attrelid = ?::regclass AND attnum > 0 AND NOT attisdropped`,
    [table],
  );
  return new Map(rows.map((row) => [row.name, row.type]));
}

/**
 * The seeding connection only (the bench's own, closed before any daemon opens the file): SQLite keeps the indexes'
 * pages in a cache big enough for a million rows' random keys (the ids, created_at), instead of its 2 MB default,
 * and skips the syncs a crash would need (the database is thrown away after the run).
 */
async function fastSeeding(db) {
  if (dialectOfDb(db) !== 'sqlite') return;
  await db.raw('PRAGMA cache_size = -1000000');
  await db.raw('PRAGMA synchronous = OFF');
}

/**
 * `existing`: an organization made over HTTP (bench/exports), whose orders also get customer rows to join (the metrics
 * read no customer).
 */
export async function seed(db, dialect, count, existing = null, { analyze = true } = {}) {
  // Timestamps as each dialect stores them (database/rows.ts): epoch milliseconds on SQLite, timestamptz on PostgreSQL.
  const stamp = (ms) => (dialect === 'sqlite' ? ms : new Date(ms));
  const random = prng(22);
  await fastSeeding(db);
  const organizationId = existing ?? randomUUID().replaceAll('-', '');
  if (!existing)
    await db('organizations').insert({
      id: organizationId,
      name: 'Bench',
      slug: `bench-${organizationId}`,
      created_at: stamp(START),
    });
  const products = Array.from({ length: 5 }, () => randomUUID());
  const customers = Array.from({ length: 2000 }, () => randomUUID());
  if (existing)
    await insertAll(
      db,
      'customers',
      customers.map((id, i) => ({
        id,
        organization_id: organizationId,
        type: 'individual',
        email: `buyer-${i}@example.com`,
        email_verified: false,
        name: `Buyer ${i}`,
        metadata: '{}',
        created_at: stamp(START),
      })),
    );
  const subscriptionCount = Math.round(count * 0.03);
  const subscriptions = [];
  for (let i = 0; i < subscriptionCount; i++) {
    const started = START + Math.floor(random() * (END - START));
    const ended = random() < 0.4 ? started + Math.floor(random() * (END - started)) : null;
    const yearly = random() < 0.3;
    subscriptions.push({
      id: randomUUID(),
      organization_id: organizationId,
      customer_id: customers[i % customers.length],
      product_id: products[3 + (yearly ? 1 : 0)],
      product_price_id: randomUUID(),
      status: ended ? 'canceled' : 'active',
      amount: yearly ? 19_900 : 1_900,
      currency: 'usd',
      recurring_interval: yearly ? 'year' : 'month',
      recurring_interval_count: 1,
      current_period_start: stamp(started),
      current_period_end: stamp(started + 30 * 86_400_000),
      started_at: stamp(started),
      canceled_at: ended ? stamp(ended) : null,
      ended_at: ended ? stamp(ended) : null,
      payment_processor: 'sandbox',
      metadata: '{}',
      custom_field_data: '{}',
      created_at: stamp(started),
    });
  }
  await db.transaction((trx) => insertAll(trx, 'subscriptions', subscriptions));
  let written = 0;
  while (written < count) {
    const batch = [];
    for (let i = 0; i < 20_000 && written < count; i++, written++) {
      const subscription = random() < 0.2 ? subscriptions[Math.floor(random() * subscriptions.length)] : null;
      const net = subscription ? subscription.amount : 500 + Math.floor(random() * 9_500);
      const refunded = random() < 0.05 ? Math.floor(net / 2) : 0;
      batch.push({
        id: randomUUID(),
        organization_id: organizationId,
        status: refunded ? 'partially_refunded' : 'paid',
        billing_reason: subscription ? (random() < 0.3 ? 'subscription_create' : 'subscription_cycle') : 'purchase',
        customer_id: customers[Math.floor(random() * customers.length)],
        product_id: subscription ? subscription.product_id : products[Math.floor(random() * 3)],
        subscription_id: subscription?.id ?? null,
        subtotal_amount: net,
        discount_amount: 0,
        net_amount: net,
        tax_amount: 0,
        total_amount: net,
        refunded_amount: refunded,
        currency: 'usd',
        invoice_number: `BENCH-${written}`,
        payment_processor: 'sandbox',
        metadata: '{}',
        custom_field_data: '{}',
        created_at: stamp(START + Math.floor(random() * (END - START))),
      });
    }
    await db.transaction((trx) => insertAll(trx, 'orders', batch));
  }
  // A PostgreSQL database that has gained a million orders has had autovacuum analyze them long before anyone asks
  // for them; written all at once, they are asked for before its next round, and without statistics the planner
  // takes the organization for a few dozen rows (an export batch then sorts every row after its cursor).
  if (dialect === 'postgres' && analyze) await db.raw('ANALYZE');
  return organizationId;
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function time(db, organizationId, query, runs) {
  const samples = [];
  let answer;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    answer = await queryMetrics(db, [organizationId], query);
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return {
    median: percentile(samples, 50),
    p99: percentile(samples, 99),
    periods: answer.periods.length,
    totals: answer.totals,
  };
}

async function benchOne(dialect, flags) {
  const url =
    dialect === 'sqlite'
      ? `sqlite://${join(makeTempDir('till-bench-metrics-'), 'till.db')}`
      : await createDatabase(flags.pgUrl, `till_bench_metrics_${process.pid}`);
  const db = createDb(url);
  try {
    await migrateLatest(db);
    let started = performance.now();
    const organizationId = await seed(db, dialect, flags.orders);
    const seedSeconds = (performance.now() - started) / 1000;
    started = performance.now();
    await rebuildRollups(db, organizationId);
    const rebuildSeconds = (performance.now() - started) / 1000;
    const [{ buckets }] = await db('metrics_buckets').count({ buckets: '*' });
    const base = { start_date: '2023-11-01', end_date: '2026-10-31', interval: 'day', timezone: 'UTC' };
    const threeYears = await time(db, organizationId, base, flags.runs);
    const paris = await time(db, organizationId, { ...base, timezone: 'Europe/Paris' }, flags.runs);
    const oneYear = await time(db, organizationId, { ...base, start_date: '2025-10-30' }, flags.runs);
    return {
      dialect,
      orders: flags.orders,
      seedSeconds,
      rebuildSeconds,
      buckets: Number(buckets),
      threeYears,
      paris,
      oneYear,
    };
  } finally {
    await db.destroy();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();

async function main() {
  const flags = options(process.argv.slice(2));
  const results = [];
  try {
    for (const dialect of flags.only) {
      log(`${dialect}: seeding ${flags.orders} orders…`);
      const result = await benchOne(dialect, flags);
      results.push(result);
      const ms = (n) => `${n.toFixed(1)} ms`;
      log(
        `${dialect}: seed ${result.seedSeconds.toFixed(1)} s, rebuild ${result.rebuildSeconds.toFixed(1)} s, ${result.buckets} bucket rows; ` +
          `3 years by day (${result.threeYears.periods} periods): median ${ms(result.threeYears.median)}, p99 ${ms(result.threeYears.p99)}; ` +
          `Europe/Paris: median ${ms(result.paris.median)}, p99 ${ms(result.paris.p99)}; ` +
          `366 days: median ${ms(result.oneYear.median)}, p99 ${ms(result.oneYear.p99)}; ` +
          `orders ${result.threeYears.totals.orders}, MRR ${result.threeYears.totals.monthly_recurring_revenue}`,
      );
    }
    console.log(
      JSON.stringify(
        results.map(({ threeYears, paris, oneYear, ...rest }) => ({
          ...rest,
          threeYears: { median: threeYears.median, p99: threeYears.p99 },
          paris: { median: paris.median, p99: paris.p99 },
          oneYear: { median: oneYear.median, p99: oneYear.p99 },
        })),
      ),
    );
  } finally {
    await cleanup(flags.pgUrl);
  }
}
