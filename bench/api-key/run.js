#!/usr/bin/env node
// API-key benchmark: GET /api/auth/get-session authenticated by an API key against the same route authenticated by
// a session, on one Till daemon, in one run, on PostgreSQL. Reuses bench/auth's daemon launcher (till-server.mjs)
// and load generator (load.mjs). Scenarios are interleaved over rounds and the median round of each is reported.
// Prints a table, the ratios against the goal (key ≥ 0.8 × session) and, last, one JSON line.
// `npm run build && npm run bench:api-key [-- --quick | --rounds 5 | --duration 10 | --connections 32 | --pg-url URL]`
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { request } from 'undici';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../..');
const AUTH_BENCH = join(ROOT, 'bench/auth');
const GOAL = 0.8; // API-key get-session req/s ≥ 80 % of session get-session req/s

function options(argv) {
  const flags = { duration: 10, warmup: 2, connections: 32, rounds: 3, pgUrl: process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/test' };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      process.stdout.write('Usage: node bench/api-key/run.js [--duration <s>] [--warmup <s>] [--connections <n>] [--rounds <n>] [--pg-url <url>] [--quick]\n');
      process.exit(0);
    } else if (arg === '--quick') Object.assign(flags, { duration: 3, warmup: 1, rounds: 1 });
    else if (arg === '--pg-url') flags.pgUrl = argv[++i];
    else if (/^--(duration|warmup|connections|rounds)$/.test(arg) && Number(argv[i + 1]) > 0) flags[arg.slice(2)] = Number(argv[++i]);
    else {
      process.stderr.write(`bench:api-key: unknown option ${arg}\nOptions: --duration <s> --warmup <s> --connections <n> --rounds <n> --pg-url <url> --quick\n`);
      process.exit(2);
    }
  }
  return flags;
}

const log = (message) => process.stderr.write(`[bench] ${message}\n`);
const freePort = () =>
  new Promise((done, fail) => {
    const server = createServer().once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });

/** CPU seconds (user + system, all threads) a process has used so far, from /proc; null elsewhere. */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

async function admin(pgUrl, sql) {
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

async function startTill(dbUrl, dataDir) {
  const port = await freePort();
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    TILL_DATABASE_URL: dbUrl,
    TILL_SECRET: randomBytes(32).toString('base64url'),
    TILL_HOST: '127.0.0.1',
    TILL_PORT: String(port),
    TILL_RATE_LIMIT: 'off',
    TILL_DATA_DIR: dataDir,
    TILL_LOG_LEVEL: 'error',
  };
  const execArgv = ['--import', pathToFileURL(join(AUTH_BENCH, 'exit-with-parent.mjs')).href];
  const child = fork(join(AUTH_BENCH, 'till-server.mjs'), [], { env, execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  await new Promise((done, fail) => {
    child.once('message', (message) => (message?.type === 'ready' ? done() : fail(new Error(`unexpected ${JSON.stringify(message)}`))));
    child.once('exit', (code) => fail(new Error(`till exited (${code}) before it was ready`)));
  });
  return { child, baseUrl: `http://127.0.0.1:${port}` };
}

async function json(baseUrl, path, { method = 'GET', headers = {}, body } = {}) {
  const response = await request(`${baseUrl}${path}`, {
    method,
    headers: { origin: baseUrl, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`${method} ${path} answered ${response.statusCode} ${text.slice(0, 300)}`);
  return { json: JSON.parse(text), headers: response.headers };
}

/** One load run (bench/auth/load.mjs in its own process), with the server's CPU over the measured window. */
function load(spec, serverPid) {
  const child = fork(join(AUTH_BENCH, 'load.mjs'), [], { execArgv: ['--max-semi-space-size=32'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let cpu0 = null;
  return new Promise((done, fail) => {
    child.on('message', (message) => {
      if (message.type === 'measuring') cpu0 = cpuSeconds(serverPid);
      else if (message.type === 'failed') fail(new Error(message.error));
      else if (message.type === 'result') {
        const result = message.result;
        const cpu1 = cpuSeconds(serverPid);
        if (cpu0 !== null && cpu1 !== null && result.requests > 0) result.serverCpuMicrosPerRequest = ((cpu1 - cpu0) * 1e6) / result.requests;
        done(result);
      }
    });
    child.once('exit', (code) => fail(new Error(`load exited (${code}) without a result`)));
    child.send({ type: 'run', spec });
  });
}

const KEY = 'API key  x-api-key';
const COOKIE = 'session  cookie';
const BEARER_KEY = 'API key  Authorization: Bearer <key>';
const BEARER_SESSION = 'session  Authorization: Bearer <token>';

/** Prints the table, the ratios and one JSON line; returns the exit status. */
function report(flags, pgVersion, rounds, keyRowUpdates) {
  const median = (list) => [...list].sort((a, b) => a.rps - b.rps)[Math.floor((list.length - 1) / 2)];
  const results = Object.fromEntries([...rounds].map(([label, list]) => [label, median(list)]));
  const failed = [...rounds].flatMap(([label, list]) =>
    list.filter((r) => r.errors > 0 || r.requests === 0).map((r) => `${label}: ${r.errors} errors ${r.badSamples.join(' | ')}`),
  );
  const ratios = {
    xApiKeyOverCookie: results[KEY].rps / results[COOKIE].rps,
    bearerKeyOverBearerSession: results[BEARER_KEY].rps / results[BEARER_SESSION].rps,
    // Server CPU per request moves less than req/s when something else runs on the machine.
    cpuXApiKeyOverCookie: results[KEY].serverCpuMicrosPerRequest / results[COOKIE].serverCpuMicrosPerRequest,
  };
  const requests = [...rounds.values()].flat().reduce((n, r) => n + r.requests, 0);
  const fmt = (value, digits = 0) => (value === undefined || value === null ? '-' : value.toFixed(digits));
  const row = (cells, widths) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('');
  const widths = [42, 9, 9, 9, 12, 8];
  const lines = [
    '',
    `API-key benchmark: GET /api/auth/get-session, ${flags.connections} connections, ${flags.warmup} s warm-up + ${flags.duration} s, ` +
      `median of ${flags.rounds} round(s); Node ${process.version}, ${cpus().length} CPUs, PostgreSQL ${pgVersion}`,
    '',
    row(['scenario', 'req/s', 'p50 ms', 'p99 ms', 'CPU us/req', 'errors'], widths),
    ...Object.entries(results).map(([label, r]) =>
      row([label, fmt(r.rps), fmt(r.latencyMs.p50, 2), fmt(r.latencyMs.p99, 2), fmt(r.serverCpuMicrosPerRequest), String(r.errors)], widths),
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
  const json = { bench: 'api-key', ok: failed.length === 0, config, results, rounds: Object.fromEntries(rounds), ratios, goal: GOAL, keyRowUpdates, failures: failed };
  process.stdout.write(JSON.stringify(json) + '\n');
  return failed.length === 0 ? 0 : 1;
}

async function main(flags) {
  if (!existsSync(join(ROOT, 'dist/src/daemon/server.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  const name = `bench_apikey_${process.pid}_${randomBytes(3).toString('hex')}`;
  const pgVersion = (await admin(flags.pgUrl, 'SHOW server_version')).rows[0].server_version;
  await admin(flags.pgUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(flags.pgUrl);
  url.pathname = `/${name}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'till-bench-apikey-'));
  let till = null;
  try {
    till = await startTill(url.toString(), dataDir);
    const { baseUrl } = till;
    log(`till at ${baseUrl} (pid ${till.child.pid}), PostgreSQL ${pgVersion}`);
    const email = `bench-${name}@example.com`;
    const signUp = await json(baseUrl, '/api/auth/sign-up/email', { method: 'POST', body: { name: 'Bench', email, password: 'correct horse battery staple' } });
    const cookie = [].concat(signUp.headers['set-cookie']).map((line) => line.split(';')[0]).join('; ');
    const token = signUp.json.token;
    const bearer = { authorization: `Bearer ${token}` };
    const created = await json(baseUrl, '/api/auth/api-key/create', { method: 'POST', headers: bearer, body: { name: 'bench' } });
    const key = created.json.key;
    const check = await json(baseUrl, '/api/auth/get-session', { headers: { 'x-api-key': key } });
    if (check.json?.user?.email !== email || check.json.session.id !== created.json.id) throw new Error('get-session with x-api-key did not answer the key\'s session');

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
        rounds.get(label).push(await load(spec, till.child.pid));
      }
    }
    // Row updates on api_keys while the key was hammered: the proof that a use costs no write (at most one a minute).
    await new Promise((done) => setTimeout(done, 1500)); // PostgreSQL publishes table statistics about once a second
    const stats = await admin(url.toString(), "SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = 'api_keys'");
    const keyRowUpdates = Number(stats.rows[0]?.n_tup_upd ?? NaN);

    return report(flags, pgVersion, rounds, keyRowUpdates);
  } finally {
    if (till) {
      till.child.kill('SIGTERM');
      await new Promise((done) => (till.child.exitCode !== null ? done() : till.child.once('exit', done)));
    }
    const drop = `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`;
    await admin(flags.pgUrl, drop).catch((error) => log(`could not drop ${name}: ${error.message}`));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main(options(process.argv.slice(2))).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`bench:api-key: ${error.stack ?? error}\n`);
    process.exit(1);
  },
);
