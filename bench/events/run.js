#!/usr/bin/env node
// Event ingestion benchmark (issue 19): 8 clients post batches of 1,000 events for 10,000 customers to an
// organization with 5 meters (filters and mixed aggregations), on SQLite and on PostgreSQL; the baseline is a bare
// Koa route that reads and parses the same batches, in the same run. Reports events/s, p50/p99 per batch, the
// daemon's RSS after the load, and a customer meter read at the start (1,000 events), at the end and at rest after it,
// then the goals (report.mjs).
// Runs on bench/auth's harness (processes, databases, clean-up) and daemon launcher (till-server.mjs).
// `npm run build && npm run bench:events [-- --events 5000000 | --only sqlite | --clients 8 | --pg-url URL]`
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import {
  BenchError,
  EXIT_WITH_PARENT,
  HERE as AUTH_BENCH,
  cleanup,
  cookiesFrom,
  createDatabase,
  freePort,
  log,
  makeTempDir,
  memoryOf,
  postgresWal,
  processCpuSeconds,
  threadCpuSeconds,
  databaseCpuSecondsSince,
  databaseCpuSnapshot,
  requestText,
  startChild,
  stopChild,
  tillEnv,
  waitUntilReady,
} from '../auth/harness.mjs';
import { summarizeProfile } from '../auth/profile-summary.mjs';
import { options } from './flags.mjs';
import { goalsOf, reportLines } from './report.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const BATCH = 1000;
const SCOPES = [
  'events:write',
  'events:read',
  'meters:write',
  'meters:read',
  'customers:write',
  'customer_meters:read',
];

async function json(baseUrl, path, init = {}, expect = 200) {
  const { status, headers, text } = await requestText(baseUrl, path, init);
  if (status !== expect)
    throw new BenchError(
      `${init.method ?? 'GET'} ${path} answered ${status} (expected ${expect}): ${text.slice(0, 400)}`,
    );
  return { json: JSON.parse(text), headers };
}

// Five meters: filters on the name and metadata, and count, sum, max, avg and unique.
const METERS = [
  {
    name: 'API calls',
    filter: { conjunction: 'and', clauses: [{ property: 'name', operator: 'eq', value: 'api.call' }] },
    aggregation: { func: 'count' },
  },
  {
    name: 'GPT tokens',
    filter: {
      conjunction: 'and',
      clauses: [
        { property: 'name', operator: 'eq', value: 'llm' },
        { property: 'model', operator: 'like', value: 'gpt' },
      ],
    },
    aggregation: { func: 'sum', property: 'tokens' },
  },
  {
    name: 'Slowest call',
    filter: {
      conjunction: 'and',
      clauses: [
        { property: 'name', operator: 'eq', value: 'api.call' },
        { property: 'status', operator: 'lt', value: 500 },
      ],
    },
    aggregation: { func: 'max', property: 'latency_ms' },
  },
  {
    name: 'Average tokens',
    filter: {
      conjunction: 'or',
      clauses: [
        { property: 'name', operator: 'eq', value: 'llm' },
        {
          conjunction: 'and',
          clauses: [
            { property: 'name', operator: 'eq', value: 'embed' },
            { property: 'tokens', operator: 'gt', value: 100 },
          ],
        },
      ],
    },
    aggregation: { func: 'avg', property: 'tokens' },
  },
  {
    name: 'Regions',
    filter: { conjunction: 'and', clauses: [{ property: 'name', operator: 'ne', value: 'embed' }] },
    aggregation: { func: 'unique', property: 'region' },
  },
];

async function setUp(baseUrl, tag, customerCount) {
  const signUp = await json(baseUrl, '/api/auth/sign-up/email', {
    method: 'POST',
    body: { name: 'Bench Merchant', email: `owner-${tag}@example.com`, password: 'correct horse battery staple' },
  });
  const cookie = cookiesFrom(signUp.headers);
  const organization = await json(baseUrl, '/api/auth/organization/create', {
    method: 'POST',
    headers: { cookie },
    body: { name: 'Bench Meters', slug: `bench-meters-${tag}` },
  });
  const created = await json(
    baseUrl,
    '/v1/organization-access-tokens/',
    {
      method: 'POST',
      headers: { authorization: `Bearer ${signUp.json.token}` },
      body: { organization_id: organization.json.id, comment: 'bench:events', scopes: SCOPES },
    },
    201,
  );
  const headers = { authorization: `Bearer ${created.json.token}` };
  for (const meter of METERS) await json(baseUrl, '/v1/meters/', { method: 'POST', headers, body: meter }, 201);
  const customers = new Array(customerCount);
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < customerCount) {
        const i = next++;
        const made = await json(
          baseUrl,
          '/v1/customers/',
          { method: 'POST', headers, body: { email: `c${i}-${tag}@example.com`, external_id: `user-${i}` } },
          201,
        );
        customers[i] = made.json.id;
      }
    }),
  );
  return { headers, customers };
}

/** Batches as sent: 1,000 events each, spread over the customers, some by external id; a few distinct bodies reused. */
function makeBodies(customers, count) {
  const names = ['api.call', 'api.call', 'llm', 'embed'];
  const models = ['gpt-5', 'gpt-4o', 'claude'];
  const regions = ['eu', 'us', 'ap', 'sa', 'af'];
  const start = Date.now() - 6 * 3600_000;
  let k = 0;
  return Array.from({ length: count }, () => {
    const events = Array.from({ length: BATCH }, () => {
      k += 1;
      const i = (k * 7919) % customers.length;
      const name = names[k % names.length];
      const who = k % 5 === 0 ? { external_customer_id: `user-${i}` } : { customer_id: customers[i] };
      return {
        name,
        ...who,
        timestamp: new Date(start + ((k * 997) % (6 * 3600_000))).toISOString(),
        metadata:
          name === 'api.call'
            ? { latency_ms: (k * 31) % 900, status: k % 17 === 0 ? 503 : 200, region: regions[k % regions.length] }
            : { tokens: (k * 13) % 4000, model: models[k % models.length], region: regions[k % regions.length] },
      };
    });
    return JSON.stringify({ events });
  });
}

/** `total` events posted by `clients` concurrent clients; answers events/s and per-batch latencies. */
async function load(baseUrl, headers, bodies, total, clients) {
  const pool = new Pool(baseUrl, { connections: clients, pipelining: 1 });
  const latencies = [];
  let sent = 0;
  let failures = 0;
  let lastFailure = '';
  const batches = Math.ceil(total / BATCH);
  const started = performance.now();
  let lastReport = started;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (sent < batches) {
        const body = bodies[sent++ % bodies.length];
        const t0 = performance.now();
        const response = await pool.request({
          path: '/v1/events/ingest',
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body,
        });
        const text = await response.body.text();
        latencies.push(performance.now() - t0);
        if (response.statusCode !== 200) {
          failures += 1;
          lastFailure = `${response.statusCode} ${text.slice(0, 200)}`;
        }
        if (performance.now() - lastReport > 5000) {
          lastReport = performance.now();
          log(
            `  ${latencies.length * BATCH} events, ${Math.round((latencies.length * BATCH) / ((lastReport - started) / 1000))}/s`,
          );
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return {
    eventsPerSecond: (latencies.length * BATCH) / seconds,
    p50: at(0.5),
    p99: at(0.99),
    failures,
    lastFailure,
    seconds,
  };
}

/** The median of many reads of one customer meter. */
async function meterRead(baseUrl, headers, id, reads = 300) {
  const times = [];
  for (let i = 0; i < reads; i++) {
    const t0 = performance.now();
    await json(baseUrl, `/v1/customer-meters/${id}`, { headers });
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

async function benchTill(flags, db) {
  const tag = randomBytes(4).toString('hex');
  const dbUrl =
    db === 'sqlite'
      ? `sqlite:${join(makeTempDir('till-bench-events-'), 'till.db')}`
      : await createDatabase(flags.pgUrl, `bench_auth_events_${tag}`);
  const port = await freePort();
  const child = startChild(`till on ${db}`, join(AUTH_BENCH, 'till-server.mjs'), [], {
    env: tillEnv({ dbUrl, port, dataDir: makeTempDir('till-bench-events-data-') }),
    execArgv: [
      ...EXIT_WITH_PARENT,
      ...(flags.cpuProf ? ['--cpu-prof', '--cpu-prof-dir', join(flags.cpuProf, db)] : []),
    ],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilReady(child, baseUrl);
  log(`${db}: creating ${flags.customers} customers and ${METERS.length} meters`);
  const { headers, customers } = await setUp(baseUrl, tag, flags.customers);
  const bodies = makeBodies(customers, 40);
  await json(baseUrl, '/v1/events/ingest', {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.parse(bodies[0]),
  });
  const someone = JSON.parse(bodies[0]).events[0].customer_id;
  const first = await json(baseUrl, `/v1/customer-meters/?customer_id=${someone}&limit=1`, { headers });
  const meterId = first.json.items[0]?.id;
  if (!meterId) throw new BenchError('no customer meter after the first batch');
  const readAtStart = await meterRead(baseUrl, headers, meterId);
  log(`${db}: ingesting ${flags.events} events with ${flags.clients} clients`);
  const cpu0 = processCpuSeconds(child.pid);
  const main0 = threadCpuSeconds(child.pid);
  // Its own connection is closed before the CPU's snapshot, so that it is not counted.
  const wal0 = await postgresWal(dbUrl);
  const dbCpu0 = databaseCpuSnapshot(dbUrl);
  const loadStarted = performance.now();
  const result = await load(baseUrl, headers, bodies, flags.events, flags.clients);
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  const cpu1 = processCpuSeconds(child.pid);
  const main1 = threadCpuSeconds(child.pid);
  const dbCpu = databaseCpuSecondsSince(dbCpu0);
  const wal1 = wal0 && (await postgresWal(dbUrl));
  const memory = memoryOf(child.pid);
  const readAtEnd = await meterRead(baseUrl, headers, meterId);
  // And once the daemon has been idle a while: V8 shrinks the heap some seconds after allocation stops, so what the
  // daemon holds shows then, apart from the garbage of the last seconds of load.
  await new Promise((resolve) => setTimeout(resolve, 15_000));
  const settled = memoryOf(child.pid);
  // The same read once the daemon's background work has caught up with the load (on SQLite the customer index's
  // merges and the totals' writes share the one connection with reads): the read at this history, not during a
  // catch-up. Both are printed.
  const readAtRest = await meterRead(baseUrl, headers, meterId);
  // A profile is written only by a daemon that exits on its own.
  await stopChild(child, flags.cpuProf ? 60_000 : undefined);
  if (flags.cpuProf) {
    const dir = join(flags.cpuProf, db);
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.cpuprofile')))
      process.stderr.write(
        `\nCPU profile of Till on ${db}: ${join(dir, file)}\n${summarizeProfile(join(dir, file), 30)}\n`,
      );
  }
  return {
    ...result,
    rssMb: memory.rssMb,
    peakRssMb: memory.peakRssMb,
    settledRssMb: settled.rssMb,
    daemonCpuMicrosPerEvent: ((cpu1 - cpu0) * 1e6) / flags.events,
    // PostgreSQL's backends serving this database (null on SQLite, whose work is in the daemon's figure).
    databaseCpuMicrosPerEvent: dbCpu === null ? null : (dbCpu * 1e6) / flags.events,
    // PostgreSQL: the WAL written an event and the checkpoints made during the load (server-wide; null on SQLite).
    walBytesPerEvent: wal1 ? (wal1.bytes - wal0.bytes) / flags.events : null,
    checkpoints: wal1 ? wal1.checkpoints - wal0.checkpoints : null,
    // The event loop's thread alone, as a share of the load's duration (the rest it waited, on SQLite's thread or the
    // server, or had nothing to do).
    mainThreadBusy: (main1 - main0) / loadSeconds,
    readAtStartMs: readAtStart,
    readAtEndMs: readAtEnd,
    readAtRestMs: readAtRest,
  };
}

async function benchKoa(flags) {
  const port = await freePort();
  const child = startChild('bare koa (bench/events/koa-ingest.mjs)', join(HERE, 'koa-ingest.mjs'), [], {
    env: { ...process.env, KOA_PORT: String(port) },
    execArgv: [...EXIT_WITH_PARENT],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilReady(child, baseUrl);
  const customers = Array.from(
    { length: flags.customers },
    (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  );
  const result = await load(baseUrl, {}, makeBodies(customers, 40), Math.min(flags.events, 300_000), flags.clients);
  await stopChild(child);
  return result;
}

async function main() {
  const flags = options(process.argv.slice(2));
  const results = {};
  const koaRuns = [];
  try {
    log('bare Koa: parsing the same batches');
    koaRuns.push(await benchKoa(flags));
    for (const db of flags.only) results[db] = await benchTill(flags, db);
    // Again after: the machine's speed drifts within a run too. The faster of the two is the baseline, so that a slow
    // moment of the baseline never makes Till's ratio look better than it is.
    log('bare Koa: parsing the same batches again');
    koaRuns.push(await benchKoa(flags));
  } finally {
    await cleanup(flags.pgUrl);
  }
  const fastest = koaRuns.reduce((best, run) => (run.eventsPerSecond > best.eventsPerSecond ? run : best));
  results.koa = { ...fastest, runs: koaRuns };
  let failed = false;
  for (const db of flags.only) {
    failed ||= results[db].failures > 0;
    results[db].goals = goalsOf(db, results[db], fastest.eventsPerSecond, flags.events);
  }
  const lines = reportLines(flags, results, BATCH);
  process.stdout.write(`${lines.join('\n')}\n${JSON.stringify({ flags: { ...flags, pgUrl: undefined }, results })}\n`);
  process.exit(failed ? 1 : 0);
}

main().catch(async (error) => {
  process.stderr.write(`bench:events: ${error instanceof BenchError ? error.message : error.stack}\n`);
  process.exit(1);
});
