#!/usr/bin/env node
// Checkout benchmark (issue 7): complete purchases per second -- create a checkout with an organization access token
// (POST /v1/checkouts/), confirm it as the buyer with the sandbox's test card (POST /v1/checkouts/client/{secret}/
// confirm), order paid (the confirm answers status `confirmed`) -- on SQLite and on PostgreSQL, and a bare Koa app's
// req/s in the same run as the baseline. Runs on bench/auth's harness (harness.mjs: processes, databases, CPU
// readings, clean-up), daemon launcher (till-server.mjs), bare Koa app (koa-server.mjs), single-request load
// generator (load.mjs, for Koa) and table helpers (report.mjs); the purchase loop is ./load.mjs.
// Scenarios are interleaved over rounds and the median round of each is reported.
// Prints a table, the ratios against bare Koa and the goal (≥ 300 purchases/s on SQLite) and, last, one JSON line.
// `npm run build && npm run bench:checkout [-- --quick | --rounds 5 | --duration 10 | --connections 16 | --pg-url URL]`
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  BenchError,
  EXIT_WITH_PARENT,
  HERE as AUTH_BENCH,
  ROOT,
  cleanup,
  cookiesFrom,
  createDatabase,
  freePort,
  log,
  logServerOutput,
  makeTempDir,
  requestText,
  startChild,
  startLoad,
  stopChild,
  tillEnv,
  waitUntilReady,
  withAdmin,
} from '../auth/harness.mjs';
import { benchFlags } from '../auth/flags.mjs';
import { summarizeProfile } from '../auth/profile-summary.mjs';
import { fmt, median, row } from '../auth/report.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const GOAL_SQLITE = 300; // purchases/s on SQLite (issue 7)
const SCOPES = ['checkouts:write', 'checkouts:read', 'products:write', 'products:read'];

const HELP = `Usage: node bench/checkout/run.js [options]        (npm run bench:checkout -- [options])

  --duration <s>       measured seconds per scenario and round          (10)
  --warmup <s>         warm-up seconds before measuring                 (2)
  --connections <n>    concurrent purchases (and Koa connections)       (16)
  --rounds <n>         interleaved rounds; the median round is reported (3)
  --only <list>        sqlite,postgres (bare Koa always runs)           (both)
  --pg-url <url>       PostgreSQL to create the database on             BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/test)
  --cpu-prof <dir>     run the daemons under node --cpu-prof, write the profiles to <dir> and print their hot spots
  --quick              --duration 3 --warmup 1 --rounds 1
`;

function options(argv) {
  return benchFlags(argv, {
    name: 'checkout',
    help: HELP,
    defaults: { duration: 10, warmup: 2, connections: 16, rounds: 3 },
    quick: { duration: 3, warmup: 1, rounds: 1 },
    numbers: { duration: {}, warmup: { zero: true }, connections: { whole: true }, rounds: { whole: true } },
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Servers and set-up

async function startTill(flags, dbUrl, label) {
  const port = await freePort();
  const env = tillEnv({ dbUrl, port, dataDir: makeTempDir('till-bench-checkout-') });
  const execArgv = [...EXIT_WITH_PARENT];
  if (flags.cpuProf) execArgv.push('--cpu-prof', '--cpu-prof-dir', join(flags.cpuProf, label));
  const child = startChild(`till on ${label} (bench/auth/till-server.mjs)`, join(AUTH_BENCH, 'till-server.mjs'), [], {
    env,
    execArgv,
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilReady(child, baseUrl);
  return { child, baseUrl, label };
}

async function startKoa() {
  const port = await freePort();
  const child = startChild('bare koa (bench/auth/koa-server.mjs)', join(AUTH_BENCH, 'koa-server.mjs'), [], {
    env: { ...process.env, KOA_PORT: String(port) },
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilReady(child, baseUrl);
  return { child, baseUrl };
}

/** A request that must answer `expect` with JSON. */
async function json(baseUrl, path, init = {}, expect = 200) {
  const { status, headers, text } = await requestText(baseUrl, path, init);
  if (status !== expect)
    throw new BenchError(
      `${init.method ?? 'GET'} ${path} answered ${status} (expected ${expect}): ${text.slice(0, 400)}`,
    );
  return { json: JSON.parse(text), headers };
}

/**
 * A merchant ready to sell: an owner (sign-up), an organization, an organization access token for checkouts and
 * products, one product at 10.00 USD; then one purchase by hand, so a broken flow fails here with its answer
 * rather than as a count of errors under load.
 */
async function setUpMerchant(baseUrl, tag) {
  const signUp = await json(baseUrl, '/api/auth/sign-up/email', {
    method: 'POST',
    body: { name: 'Bench Merchant', email: `owner-${tag}@example.com`, password: 'correct horse battery staple' },
  });
  const cookie = cookiesFrom(signUp.headers);
  const session = signUp.json.token;
  const organization = await json(baseUrl, '/api/auth/organization/create', {
    method: 'POST',
    headers: { cookie },
    body: { name: 'Bench Shop', slug: `bench-shop-${tag}` },
  });
  const created = await json(
    baseUrl,
    '/v1/organization-access-tokens/',
    {
      method: 'POST',
      headers: { authorization: `Bearer ${session}` },
      body: { organization_id: organization.json.id, comment: 'bench:checkout', scopes: SCOPES },
    },
    201,
  );
  const token = created.json.token;
  const bearer = { authorization: `Bearer ${token}` };
  const product = await json(
    baseUrl,
    '/v1/products/',
    {
      method: 'POST',
      headers: bearer,
      body: { name: 'Bench product', prices: [{ amount_type: 'fixed', price_amount: 1000, price_currency: 'usd' }] },
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
      customer_email: `first-buyer-${tag}@example.com`,
      customer_billing_address: { country: 'DE' },
      confirmation_token_id: 'tok_visa',
    },
  });
  if (paid.json.status !== 'confirmed' || paid.json.total_amount !== 1000) {
    throw new BenchError(
      `the first purchase did not succeed: status ${paid.json.status}, total ${paid.json.total_amount}`,
    );
  }
  return { token, productId: product.json.id };
}

// ---------------------------------------------------------------------------------------------------------------
// Report

const KOA = 'bare Koa  GET constant JSON';
const label = (db) => `Till on ${db === 'sqlite' ? 'SQLite' : 'PostgreSQL'}  create + confirm`;

/** Prints the table, the ratios and one JSON line; returns the exit status. */
function report(flags, pgVersion, rounds) {
  const results = Object.fromEntries([...rounds].map(([name, list]) => [name, median(list, (r) => r.rps)]));
  const failed = [...rounds].flatMap(([name, list]) =>
    list
      .filter((r) => r.errors > 0 || r.requests === 0)
      .map((r) => `${name}: ${r.errors} errors ${JSON.stringify(r.badStatuses)} ${r.badSamples.join(' | ')}`),
  );
  const koa = results[KOA];
  const ratios = Object.fromEntries(flags.only.map((db) => [db, results[label(db)].rps / koa.rps]));
  const widths = [38, 11, 9, 9, 12, 12, 12, 7];
  const lines = [
    '',
    `Checkout benchmark: ${flags.connections} concurrent purchases (Koa: ${flags.connections} connections), ${flags.warmup} s warm-up + ${flags.duration} s, ` +
      `median of ${flags.rounds} round(s); Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? '?'}), PostgreSQL ${pgVersion ?? '-'}`,
    '',
    row(
      ['scenario', 'per second', 'p50 ms', 'p99 ms', 'create p50', 'confirm p50', 'CPU ms/each', 'errors'],
      widths,
      '',
    ),
    ...Object.entries(results).map(([name, r]) =>
      row(
        [
          name,
          fmt(r.rps, 0),
          fmt(r.latencyMs.p50, 1),
          fmt(r.latencyMs.p99, 1),
          r.createLatencyMs ? fmt(r.createLatencyMs.p50, 1) : '',
          r.confirmLatencyMs ? fmt(r.confirmLatencyMs.p50, 1) : '',
          fmt(r.serverCpuMicrosPerRequest / 1000, 2),
          String(r.errors),
        ],
        widths,
        '',
      ),
    ),
    '',
    ...flags.only.map(
      (db) =>
        `Purchases/s on ${db === 'sqlite' ? 'SQLite    ' : 'PostgreSQL'} / bare Koa req/s:  ${fmt(ratios[db], 4)}  (1 purchase per ${fmt(1 / ratios[db], 0)} Koa requests)`,
    ),
    ...(flags.only.includes('sqlite')
      ? [
          `Purchases/s on SQLite: ${fmt(results[label('sqlite')].rps, 0)}   goal >= ${GOAL_SQLITE}   ${results[label('sqlite')].rps >= GOAL_SQLITE ? 'MET' : 'MISSED'}`,
        ]
      : []),
    ...(failed.length ? ['', 'FAILED:', ...failed.map((line) => `  ${line}`)] : []),
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
  const config = { ...flags, node: process.version, cpus: cpus().length, postgres: pgVersion };
  const goal = {
    sqlitePurchasesPerSecond: GOAL_SQLITE,
    met: flags.only.includes('sqlite') ? results[label('sqlite')].rps >= GOAL_SQLITE : null,
  };
  const out = {
    bench: 'checkout',
    ok: failed.length === 0,
    config,
    results,
    rounds: Object.fromEntries(rounds),
    ratiosOverKoa: ratios,
    goal,
    failures: failed,
  };
  process.stdout.write(JSON.stringify(out) + '\n');
  return failed.length === 0 ? 0 : 1;
}

// ---------------------------------------------------------------------------------------------------------------

async function main(flags) {
  if (!existsSync(join(ROOT, 'dist/src/daemon/server.js')))
    throw new BenchError('dist/ is missing: run `npm run build` first');
  if (flags.cpuProf) for (const db of flags.only) mkdirSync(join(flags.cpuProf, db), { recursive: true });
  const id = `${process.pid}_${randomBytes(3).toString('hex')}`;
  const servers = {};
  let pgVersion = null;
  try {
    if (flags.only.includes('sqlite')) {
      servers.sqlite = await startTill(
        flags,
        `sqlite:${join(makeTempDir('till-bench-checkout-db-'), 'till.db')}`,
        'sqlite',
      );
    }
    if (flags.only.includes('postgres')) {
      pgVersion = (await withAdmin(flags.pgUrl, (client) => client.query('SHOW server_version'))).rows[0]
        .server_version;
      servers.postgres = await startTill(flags, await createDatabase(flags.pgUrl, `bench_checkout_${id}`), 'postgres');
    }
    const koa = await startKoa();
    for (const db of flags.only) {
      Object.assign(servers[db], await setUpMerchant(servers[db].baseUrl, `${db}-${id}`.replaceAll('_', '-')));
      log(`till on ${db} at ${servers[db].baseUrl} (pid ${servers[db].child.pid}): merchant, token and product ready`);
    }

    const rounds = new Map([[KOA, []], ...flags.only.map((db) => [label(db), []])]);
    const common = { connections: flags.connections, warmupMs: flags.warmup * 1000, durationMs: flags.duration * 1000 };
    for (let round = 1; round <= flags.rounds; round++) {
      log(`${KOA} (round ${round}/${flags.rounds})`);
      const koaSpec = {
        ...common,
        origin: koa.baseUrl,
        path: '/api/auth/get-session',
        method: 'GET',
        expectStatus: 200,
        expectText: '"session"',
      };
      rounds.get(KOA).push(await startLoad(KOA, koaSpec, koa.child).result);
      for (const db of flags.only) {
        log(`${label(db)} (round ${round}/${flags.rounds})`);
        const { baseUrl, token, productId, child } = servers[db];
        const spec = { ...common, origin: baseUrl, token, productId, emailPrefix: `buyer-r${round}-${db}-${id}` };
        rounds.get(label(db)).push(await startLoad(label(db), spec, child, join(HERE, 'load.mjs')).result);
      }
    }
    return report(flags, pgVersion, rounds);
  } finally {
    // Anything a daemon said beyond its start-up line (errors, warnings) goes to stderr, for a look; stopping it
    // also writes its CPU profile.
    for (const server of Object.values(servers)) {
      await stopChild(server.child);
      logServerOutput(server.child);
    }
    if (flags.cpuProf) {
      for (const db of Object.keys(servers)) {
        const dir = join(flags.cpuProf, db);
        for (const file of readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'))) {
          process.stderr.write(
            `\nCPU profile of Till on ${db}: ${join(dir, file)}\n${summarizeProfile(join(dir, file), 25)}\n`,
          );
        }
      }
    }
  }
}

// The daemons, the loads, the database and the data directories go whatever happens (harness.mjs cleanup()).
const flags = options(process.argv.slice(2));
let code = 1;
try {
  code = await main(flags);
} catch (error) {
  process.stderr.write(`bench:checkout: ${error instanceof BenchError ? error.message : (error.stack ?? error)}\n`);
} finally {
  await cleanup(flags.pgUrl);
}
process.exit(code);
