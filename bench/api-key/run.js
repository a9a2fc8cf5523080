#!/usr/bin/env node
// API-key benchmark: GET /api/auth/get-session authenticated by an API key against the same route authenticated by
// a session, on one Till daemon, in one run, on PostgreSQL. Runs on bench/auth's harness (harness.mjs: processes,
// database, load generator load.mjs, clean-up), daemon launcher (till-server.mjs) and table helpers (report.mjs).
// Scenarios are interleaved over rounds and the median round of each is reported.
// Prints a table, the ratios against the goal (key ≥ 0.8 × session) and, last, one JSON line.
// `npm run build && npm run bench:api-key [-- --quick | --rounds 5 | --duration 10 | --connections 32 | --pg-url URL]`
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
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
  sleep,
  startChild,
  startLoad,
  stopChild,
  tillEnv,
  waitUntilReady,
  withAdmin,
} from '../auth/harness.mjs';
import { fmt, median, row } from '../auth/report.mjs';

const GOAL = 0.8; // API-key get-session req/s ≥ 80 % of session get-session req/s

function options(argv) {
  const flags = {
    duration: 10,
    warmup: 2,
    connections: 32,
    rounds: 3,
    pgUrl: process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/test',
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(
        'Usage: node bench/api-key/run.js [--duration <s>] [--warmup <s>] [--connections <n>] [--rounds <n>] [--pg-url <url>] [--quick]\n',
      );
      process.exit(0);
    } else if (arg === '--quick') Object.assign(flags, { duration: 3, warmup: 1, rounds: 1 });
    else if (arg === '--pg-url') flags.pgUrl = argv[++i];
    else if (/^--(duration|warmup|connections|rounds)$/.test(arg) && Number(argv[i + 1]) > 0)
      flags[arg.slice(2)] = Number(argv[++i]);
    else {
      process.stderr.write(
        `bench:api-key: unknown option ${arg}\nOptions: --duration <s> --warmup <s> --connections <n> --rounds <n> --pg-url <url> --quick\n`,
      );
      process.exit(2);
    }
  }
  return flags;
}

const query = (pgUrl, sql) => withAdmin(pgUrl, (client) => client.query(sql));

async function startTill(dbUrl) {
  const port = await freePort();
  const env = tillEnv({ dbUrl, port, dataDir: makeTempDir('till-bench-apikey-') });
  const child = startChild('till (bench/auth/till-server.mjs)', join(AUTH_BENCH, 'till-server.mjs'), [], {
    env,
    execArgv: EXIT_WITH_PARENT,
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilReady(child, baseUrl);
  return { child, baseUrl };
}

/** A request that must answer 200 with JSON. */
async function json(baseUrl, path, init = {}) {
  const { status, headers, text } = await requestText(baseUrl, path, init);
  if (status !== 200) throw new Error(`${init.method ?? 'GET'} ${path} answered ${status} ${text.slice(0, 300)}`);
  return { json: JSON.parse(text), headers };
}

/** One load run on Till, with the figures this benchmark reports (startLoad also reads CPU percentages: left out). */
async function load(label, spec, till) {
  const result = await startLoad(label, spec, till).result;
  delete result.serverCpuPercent;
  delete result.machineBusyPercent;
  return result;
}

const KEY = 'API key  x-api-key';
const COOKIE = 'session  cookie';
const BEARER_KEY = 'API key  Authorization: Bearer <key>';
const BEARER_SESSION = 'session  Authorization: Bearer <token>';

/** Prints the table, the ratios and one JSON line; returns the exit status. */
function report(flags, pgVersion, rounds, keyRowUpdates) {
  const results = Object.fromEntries([...rounds].map(([label, list]) => [label, median(list, (r) => r.rps)]));
  const failed = [...rounds].flatMap(([label, list]) =>
    list
      .filter((r) => r.errors > 0 || r.requests === 0)
      .map((r) => `${label}: ${r.errors} errors ${r.badSamples.join(' | ')}`),
  );
  const ratios = {
    xApiKeyOverCookie: results[KEY].rps / results[COOKIE].rps,
    bearerKeyOverBearerSession: results[BEARER_KEY].rps / results[BEARER_SESSION].rps,
    // Server CPU per request moves less than req/s when something else runs on the machine.
    cpuXApiKeyOverCookie: results[KEY].serverCpuMicrosPerRequest / results[COOKIE].serverCpuMicrosPerRequest,
  };
  const requests = [...rounds.values()].flat().reduce((n, r) => n + r.requests, 0);
  const widths = [42, 9, 9, 9, 12, 8];
  const lines = [
    '',
    `API-key benchmark: GET /api/auth/get-session, ${flags.connections} connections, ${flags.warmup} s warm-up + ${flags.duration} s, ` +
      `median of ${flags.rounds} round(s); Node ${process.version}, ${cpus().length} CPUs, PostgreSQL ${pgVersion}`,
    '',
    row(['scenario', 'req/s', 'p50 ms', 'p99 ms', 'CPU us/req', 'errors'], widths, ''),
    ...Object.entries(results).map(([label, r]) =>
      row(
        [
          label,
          fmt(r.rps, 0),
          fmt(r.latencyMs.p50, 2),
          fmt(r.latencyMs.p99, 2),
          fmt(r.serverCpuMicrosPerRequest, 0),
          String(r.errors),
        ],
        widths,
        '',
      ),
    ),
    '',
    `API key (x-api-key) / session (cookie), req/s:           ${fmt(ratios.xApiKeyOverCookie, 2)}   goal >= ${GOAL}   ${ratios.xApiKeyOverCookie >= GOAL ? 'MET' : 'MISSED'}`,
    `API key (Bearer) / session (Bearer), req/s:              ${fmt(ratios.bearerKeyOverBearerSession, 2)}`,
    `API key (x-api-key) / session (cookie), server CPU/req:  ${fmt(ratios.cpuXApiKeyOverCookie, 2)}   (lower is cheaper)`,
    `api_keys row updates during the whole run:               ${keyRowUpdates} (${requests} measured requests in all rounds)`,
    ...(failed.length ? ['', 'FAILED:', ...failed.map((line) => `  ${line}`)] : []),
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
  const config = { ...flags, node: process.version, cpus: cpus().length, postgres: pgVersion };
  const json = {
    bench: 'api-key',
    ok: failed.length === 0,
    config,
    results,
    rounds: Object.fromEntries(rounds),
    ratios,
    goal: GOAL,
    keyRowUpdates,
    failures: failed,
  };
  process.stdout.write(JSON.stringify(json) + '\n');
  return failed.length === 0 ? 0 : 1;
}

async function main(flags) {
  if (!existsSync(join(ROOT, 'dist/src/daemon/server.js')))
    throw new Error('dist/ is missing: run `npm run build` first');
  const name = `bench_apikey_${process.pid}_${randomBytes(3).toString('hex')}`;
  const pgVersion = (await query(flags.pgUrl, 'SHOW server_version')).rows[0].server_version;
  const dbUrl = await createDatabase(flags.pgUrl, name);
  const till = await startTill(dbUrl);
  try {
    const { baseUrl } = till;
    log(`till at ${baseUrl} (pid ${till.child.pid}), PostgreSQL ${pgVersion}`);
    const email = `bench-${name}@example.com`;
    const signUp = await json(baseUrl, '/api/auth/sign-up/email', {
      method: 'POST',
      body: { name: 'Bench', email, password: 'correct horse battery staple' },
    });
    const cookie = cookiesFrom(signUp.headers);
    const token = signUp.json.token;
    const bearer = { authorization: `Bearer ${token}` };
    const created = await json(baseUrl, '/api/auth/api-key/create', {
      method: 'POST',
      headers: bearer,
      body: { name: 'bench' },
    });
    const key = created.json.key;
    const check = await json(baseUrl, '/api/auth/get-session', { headers: { 'x-api-key': key } });
    if (check.json?.user?.email !== email || check.json.session.id !== created.json.id)
      throw new Error("get-session with x-api-key did not answer the key's session");

    const scenarios = [
      [COOKIE, { cookie }],
      [BEARER_SESSION, { authorization: `Bearer ${token}` }],
      [KEY, { 'x-api-key': key }],
      [BEARER_KEY, { authorization: `Bearer ${key}` }],
    ];
    const rounds = new Map(scenarios.map(([label]) => [label, []]));
    for (let round = 1; round <= flags.rounds; round++) {
      for (const [label, headers] of scenarios) {
        log(`${label} (round ${round}/${flags.rounds})`);
        const spec = {
          origin: baseUrl,
          path: '/api/auth/get-session',
          method: 'GET',
          headers,
          connections: flags.connections,
          warmupMs: flags.warmup * 1000,
          durationMs: flags.duration * 1000,
          expectStatus: 200,
          expectText: '"session"',
        };
        rounds.get(label).push(await load(label, spec, till.child));
      }
    }
    // Row updates on api_keys while the key was hammered: the proof that a use costs no write (at most one a minute).
    await sleep(1500); // PostgreSQL publishes table statistics about once a second
    const stats = await query(dbUrl, "SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = 'api_keys'");
    const keyRowUpdates = Number(stats.rows[0]?.n_tup_upd ?? NaN);

    return report(flags, pgVersion, rounds, keyRowUpdates);
  } finally {
    // Anything Till said beyond its start-up line (errors, warnings) goes to stderr, for a look.
    await stopChild(till.child);
    logServerOutput(till.child);
  }
}

// The daemon, the loads, the database and the data directory go whatever happens (harness.mjs cleanup()).
const flags = options(process.argv.slice(2));
let code = 1;
try {
  code = await main(flags);
} catch (error) {
  process.stderr.write(`bench:api-key: ${error instanceof BenchError ? error.message : (error.stack ?? error)}\n`);
} finally {
  await cleanup(flags.pgUrl);
}
process.exit(code);
