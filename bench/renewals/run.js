#!/usr/bin/env node
// Renewal benchmark (issue 17): 10,000 subscriptions due at one instant, seeded straight into the database, then the
// simulated clock moved past them with POST /api/admin/clock, which answers once every renewal is done (cycle order,
// charge of the saved card, paid, events). Reports renewals/s, and GET /api/auth/get-session latency measured on the
// same daemon during the storm. On SQLite and on PostgreSQL. Runs on bench/auth's harness (processes, databases,
// clean-up) and the build (dist/).
// `npm run build && npm run bench:renewals [-- --count 10000 | --only sqlite,postgres | --pg-url URL | --readers 4 | --cpu-prof DIR
// | --pause 10 | --uncached]`
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import knex from 'knex';
import { request } from 'undici';
import {
  BenchError,
  EXIT_WITH_PARENT,
  HERE as AUTH_BENCH,
  ROOT,
  cleanup,
  createDatabase,
  freePort,
  log,
  logServerOutput,
  makeTempDir,
  processCpuSeconds,
  threadCpuSeconds,
  databaseCpuSecondsSince,
  databaseCpuSnapshot,
  requestText,
  sleep,
  startChild,
  stopChild,
  tillEnv,
  waitUntilReady,
} from '../auth/harness.mjs';

const GOAL_RENEWALS = 1000; // renewals/s on each database
const GOAL_P99_MS = 50; // get-session p99 during the storm
const { adminToken } = await import(join(ROOT, 'dist/src/core/kernel/crypto.js'));

function parseFlags(argv) {
  const flags = {
    count: 10_000,
    only: ['sqlite', 'postgres'],
    pgUrl: process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/test',
    readers: 4,
    cpuProf: null,
    uncached: false,
    pauseMs: 10,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--count' && argv[i + 1]) flags.count = Number(argv[++i]);
    else if (arg === '--only' && argv[i + 1]) flags.only = argv[++i].split(',');
    else if (arg === '--pg-url' && argv[i + 1]) flags.pgUrl = argv[++i];
    else if (arg === '--readers' && argv[i + 1]) flags.readers = Number(argv[++i]);
    else if (arg === '--cpu-prof' && argv[i + 1]) flags.cpuProf = argv[++i];
    else if (arg === '--uncached') flags.uncached = true;
    else if (arg === '--pause' && argv[i + 1]) flags.pauseMs = Number(argv[++i]);
    else throw new BenchError(`unknown option ${arg}`);
  }
  return flags;
}

async function json(baseUrl, path, init = {}, expect = 200) {
  const { status, headers, text } = await requestText(baseUrl, path, init);
  if (status !== expect)
    throw new BenchError(
      `${init.method ?? 'GET'} ${path} answered ${status} (expected ${expect}): ${text.slice(0, 400)}`,
    );
  return { json: JSON.parse(text), headers };
}

async function start(env, label, cpuProf = null) {
  const profile = cpuProf ? ['--cpu-prof', '--cpu-prof-dir', cpuProf] : [];
  const child = startChild(`till on ${label}`, join(AUTH_BENCH, 'till-server.mjs'), [], {
    env,
    execArgv: [...EXIT_WITH_PARENT, ...profile],
  });
  const baseUrl = `http://127.0.0.1:${env.TILL_PORT}`;
  await waitUntilReady(child, baseUrl);
  return { child, baseUrl };
}

/** An owner, an organization, an access token, a monthly plan and one subscription bought through a checkout. */
async function setUp(baseUrl) {
  const signUp = await json(baseUrl, '/api/auth/sign-up/email', {
    method: 'POST',
    body: {
      name: 'Bench Merchant',
      email: `owner-${randomUUID()}@example.com`,
      password: 'correct horse battery staple',
    },
  });
  const session = signUp.json.token;
  const owner = { authorization: `Bearer ${session}` };
  const organization = await json(baseUrl, '/api/auth/organization/create', {
    method: 'POST',
    headers: owner,
    body: { name: 'Bench Shop', slug: `bench-shop-${randomUUID().slice(0, 8)}` },
  });
  const token = (
    await json(
      baseUrl,
      '/v1/organization-access-tokens/',
      {
        method: 'POST',
        headers: owner,
        body: {
          organization_id: organization.json.id,
          comment: 'bench:renewals',
          scopes: ['products:write', 'products:read', 'checkouts:write', 'checkouts:read'],
        },
      },
      201,
    )
  ).json.token;
  const bearer = { authorization: `Bearer ${token}` };
  const product = await json(
    baseUrl,
    '/v1/products/',
    {
      method: 'POST',
      headers: bearer,
      body: {
        name: 'Monthly plan',
        recurring_interval: 'month',
        prices: [{ amount_type: 'fixed', price_amount: 1500, price_currency: 'usd' }],
      },
    },
    201,
  );
  const checkout = await json(
    baseUrl,
    '/v1/checkouts/',
    { method: 'POST', headers: bearer, body: { products: [product.json.id] } },
    201,
  );
  const paid = await json(baseUrl, `/v1/checkouts/client/${checkout.json.client_secret}/confirm`, {
    method: 'POST',
    body: {
      customer_email: 'subscriber@example.com',
      customer_billing_address: { country: 'US', state: 'US-NY', postal_code: '10001' },
      confirmation_token_id: 'tok_visa',
    },
  });
  if (paid.json.status !== 'confirmed') throw new BenchError(`the purchase failed: ${JSON.stringify(paid.json)}`);
  return { session };
}

function openDb(dbUrl) {
  return dbUrl.startsWith('postgres')
    ? knex({ client: 'pg', connection: dbUrl })
    : knex({ client: 'sqlite3', connection: { filename: dbUrl.replace(/^sqlite:/, '') }, useNullAsDefault: true });
}

/**
 * count − 1 copies of the one subscription bought, each of its own customer (a customer's state lists all their
 * subscriptions) and with its cycle job, all due at the same instant. The owner's session (the only one) is made to
 * outlive the clock's jump: a session lives 7 days and the clock moves a month, after which get-session would answer
 * null for an expired session instead of the signed-in owner the readers stand for.
 */
async function seed(dbUrl, count) {
  const db = openDb(dbUrl);
  try {
    const source = await db('subscriptions').first();
    const outlives = new Date(new Date(source.current_period_end).getTime() + 365 * 24 * 3600 * 1000);
    await db('sessions').update({ expires_at: outlives });
    const customer = await db('customers').where({ id: source.customer_id }).first();
    const [job] = await db('scheduled_jobs').where({ subject_id: source.id, kind: 'subscription.cycle' });
    const contributions = (await db('metrics_source_deltas').where({ source_id: source.id })).map(
      ({ id, ...row }) => row,
    );
    // 50 rows a statement: SQLite's limit on bound values.
    for (let done = 1; done < count; done += 50) {
      const ids = Array.from({ length: Math.min(50, count - done) }, () => [randomUUID(), randomUUID()]);
      await db.transaction(async (trx) => {
        await trx('customers').insert(
          ids.map(([, customerId], i) => ({ ...customer, id: customerId, email: `s${done + i}-${customer.email}` })),
        );
        await trx('subscriptions').insert(ids.map(([id, customerId]) => ({ ...source, id, customer_id: customerId })));
        await trx('scheduled_jobs').insert(ids.map(([id]) => ({ ...job, id: randomUUID(), subject_id: id })));
        const rows = ids.flatMap(([id, customerId]) =>
          contributions.map((row) => ({ ...row, source_id: id, customer_id: customerId })),
        );
        if (rows.length > 0) await trx('metrics_source_deltas').insert(rows);
      });
    }
    await addToRollups(db, contributions, count - 1);
    // A live database of this size has been analyzed by autovacuum; one seeded a second ago has no statistics, and
    // PostgreSQL then plans scans where it would probe an index.
    if (dbUrl.startsWith('postgres')) await db.raw('ANALYZE');
    return new Date(source.current_period_end);
  } finally {
    await db.destroy();
  }
}

const METRIC_KEY = ['organization_id', 'currency', 'product_id', 'billing_type'];

/**
 * The copies' metrics contributions added to the hour and day buckets, as the daemon would have kept them: each copy
 * contributes what the subscription it copies does.
 */
async function addToRollups(db, contributions, copies) {
  for (const row of contributions) {
    const columns = Object.entries(row).filter(
      ([column, value]) =>
        !METRIC_KEY.includes(column) && !['source_id', 'customer_id', 'hour'].includes(column) && Number(value) !== 0,
    );
    if (columns.length === 0) continue;
    const key = Object.fromEntries(METRIC_KEY.map((column) => [column, row[column]]));
    for (const [table, time] of [
      ['metrics_buckets', { hour: row.hour }],
      ['metrics_days', { day: Math.floor(row.hour / 24) }],
    ]) {
      await db(table)
        .where({ ...key, ...time })
        .update(
          Object.fromEntries(
            columns.map(([column, value]) => [column, db.raw('?? + ?', [column, Number(value) * copies])]),
          ),
        );
    }
  }
}

async function countRenewals(dbUrl) {
  const db = openDb(dbUrl);
  try {
    const [orders] = await db('orders')
      .where({ billing_reason: 'subscription_cycle', status: 'paid' })
      .count({ n: '*' });
    const [charges] = await db('sandbox_processor_records').where('reference', 'like', 'renewal:%').count({ n: '*' });
    return { orders: Number(orders.n), charges: Number(charges.n) };
  } finally {
    await db.destroy();
  }
}

/**
 * `readers` loops of GET /api/auth/get-session until stopped, each pausing `pauseMs` between its requests (signed-in
 * pages, not a flood: loops without a pause take as much CPU as the storm on a small machine and measure that
 * instead); answers every latency in ms. An answer without the session counts as a failure. `uncached` asks for the
 * session read from the database each time (`disableCookieCache=true`) instead of the daemon's memory.
 */
function readSessions(baseUrl, session, { readers, uncached, pauseMs }) {
  const latencies = [];
  let stopped = false;
  let failures = 0;
  let lastError = null;
  const loops = Array.from({ length: readers }, async () => {
    while (!stopped) {
      const started = performance.now();
      try {
        const response = await request(`${baseUrl}/api/auth/get-session${uncached ? '?disableCookieCache=true' : ''}`, {
          headers: { authorization: `Bearer ${session}` },
        });
        const answer = await response.body.text();
        if (response.statusCode !== 200 || !answer.startsWith('{"session"')) {
          failures++;
          lastError = new Error(`answered ${response.statusCode} ${answer.slice(0, 100)}`);
        }
        latencies.push(performance.now() - started);
      } catch (error) {
        failures++;
        lastError = error;
      }
      if (pauseMs > 0) await sleep(pauseMs);
    }
  });
  return {
    async stop() {
      stopped = true;
      await Promise.all(loops);
      if (lastError) log(`get-session failed ${failures} times, last: ${lastError.message}`);
      return { latencies, failures };
    },
  };
}

function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** calibrate.mjs's rounds a second, on a quiet machine (no daemon running): read a rate beside it. */
function machineSpeed() {
  const script = fileURLToPath(new URL('./calibrate.mjs', import.meta.url));
  return Number(execFileSync(process.execPath, [script, '1000'], { encoding: 'utf8' }).trim());
}

async function scenario(flags, label, dbUrl) {
  const env = {
    ...tillEnv({ dbUrl, port: await freePort(), dataDir: makeTempDir('till-bench-renewals-') }),
    TILL_CLOCK: 'simulated',
    // The clock's answer waits for the whole storm.
    TILL_IDLE_TIMEOUT_MS: '600000',
    TILL_REQUEST_TIMEOUT_MS: '600000',
  };
  let server = await start(env, label);
  const { session } = await setUp(server.baseUrl);
  // SQLite is one daemon's file, locked while it runs: seeded with the daemon stopped (PostgreSQL alike, for sameness).
  await stopChild(server.child);
  const due = await seed(dbUrl, flags.count);
  const speedBefore = machineSpeed();
  // Only the storm is profiled (--cpu-prof): the daemon that runs it.
  server = await start(env, label, flags.cpuProf);
  try {
    const admin = { authorization: `Bearer ${adminToken(env.TILL_SECRET)}` };
    const readers = readSessions(server.baseUrl, session, flags);
    const cpu0 = processCpuSeconds(server.child.pid);
    const main0 = threadCpuSeconds(server.child.pid);
    const dbCpu0 = databaseCpuSnapshot(dbUrl);
    const started = performance.now();
    await json(server.baseUrl, '/api/admin/clock', {
      method: 'POST',
      headers: admin,
      body: { to: new Date(due.getTime() + 1000).toISOString() },
    }).catch(async (error) => {
      await readers.stop();
      await stopChild(server.child);
      log(
        `after ${((performance.now() - started) / 1000).toFixed(1)} s; ${server.child.benchName} said:\n${server.child.output.slice(-3000)}`,
      );
      throw error;
    });
    const seconds = (performance.now() - started) / 1000;
    const cpu1 = processCpuSeconds(server.child.pid);
    const main1 = threadCpuSeconds(server.child.pid);
    const dbCpu = databaseCpuSecondsSince(dbCpu0);
    const { latencies, failures } = await readers.stop();
    await stopChild(server.child);
    logServerOutput(server.child);
    const machine = Math.round((speedBefore + machineSpeed()) / 2);
    const done = await countRenewals(dbUrl);
    if (done.orders !== flags.count || done.charges !== flags.count)
      throw new BenchError(`${label}: ${done.orders} paid cycle orders and ${done.charges} charges for ${flags.count}`);
    return {
      label,
      renewals: flags.count,
      seconds,
      perSecond: flags.count / seconds,
      // Daemon CPU (all threads) and database backends' CPU per renewal, get-session reads included.
      daemonCpuMs: cpu0 === null || cpu1 === null ? null : ((cpu1 - cpu0) * 1000) / flags.count,
      databaseCpuMs: dbCpu === null ? null : (dbCpu * 1000) / flags.count,
      // The event loop's thread alone, as a share of the storm: what is left of the storm it spent waiting (for SQLite's
      // thread, for the server), or on nothing.
      mainThreadBusy: main0 === null || main1 === null ? null : (main1 - main0) / seconds,
      loadAverage: loadavg()[0],
      sessionReads: latencies.length,
      sessionFailures: failures,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      machine,
    };
  } finally {
    await stopChild(server.child).catch(() => undefined);
  }
}

async function main() {
  const flags = parseFlags(process.argv.slice(2));
  const results = [];
  try {
    for (const label of flags.only) {
      const dbUrl =
        label === 'postgres'
          ? await createDatabase(flags.pgUrl, `bench_renewals_${process.pid}`)
          : `sqlite:${join(makeTempDir('till-bench-renewals-db-'), 'till.db')}`;
      log(`${label}: ${flags.count} subscriptions due at one instant`);
      results.push(await scenario(flags, label, dbUrl));
    }
  } finally {
    await cleanup(flags.pgUrl);
  }
  for (const r of results) {
    process.stdout.write(
      `${r.label.padEnd(9)} ${r.renewals} renewals in ${r.seconds.toFixed(2)} s = ${r.perSecond.toFixed(0)}/s ` +
        `(goal ${GOAL_RENEWALS}); get-session during the storm: ${r.sessionReads} reads, p50 ${r.p50.toFixed(1)} ms, ` +
        `p99 ${r.p99.toFixed(1)} ms (goal < ${GOAL_P99_MS}), ${r.sessionFailures} failed; CPU a renewal: daemon ` +
        `${r.daemonCpuMs?.toFixed(2) ?? '?'} ms${r.databaseCpuMs === null ? '' : `, database ${r.databaseCpuMs.toFixed(2)} ms`}; ` +
        `daemon's main thread busy ${r.mainThreadBusy === null ? '?' : `${(r.mainThreadBusy * 100).toFixed(0)} %`} of the storm; ` +
        `load average ${r.loadAverage.toFixed(1)}; machine ${r.machine} (calibrate.mjs, before and after)\n`,
    );
  }
  process.stdout.write(`${JSON.stringify({ bench: 'renewals', results })}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error instanceof BenchError ? error.message : error.stack}\n`);
  process.exitCode = 1;
});
