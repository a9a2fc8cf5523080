#!/usr/bin/env node
// Auth benchmark: Till's /api/auth against Better Auth 1.7.25 and a bare Koa app, side by side in one run on the
// same PostgreSQL server. Every server runs in its own child process on its own fresh database (created and dropped
// here); the load comes from separate child processes (load.mjs, undici). See `node bench/auth/run.js --help`.
//
// Prints a table and, last, one JSON line with every figure. Exits 1 when a server fails to start or a scenario
// sees failed requests (more than 1 %); missing a performance goal is reported, not an error.
import { execFileSync, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { request } from 'undici';
import { summarizeProfile } from './profile-summary.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../..');
const SCENARIOS = ['till', 'mixed', 'better-auth', 'koa'];

const GOALS = {
  tillOverBetterAuth: 10, // Till get-session req/s ≥ 10 × Better Auth's
  tillOverKoa: 0.35, // Till get-session req/s ≥ 35 % of bare Koa's
  mixedP99Ms: 25, // Till get-session p99 while sign-ins run flat out < 25 ms
};

// ---------------------------------------------------------------------------------------------------------------
// Options

const HELP = `Usage: node bench/auth/run.js [options]        (npm run bench:auth -- [options])

  --duration <s>            measured seconds per scenario          BENCH_DURATION            (10)
  --warmup <s>              warm-up seconds before measuring       BENCH_WARMUP              (2)
  --connections <n>         get-session connections                BENCH_CONNECTIONS         (32)
  --signin-connections <n>  sign-in connections in the mixed run   BENCH_SIGNIN_CONNECTIONS  (8)
  --mixed-rate <rps>        pace get-session in the mixed run      BENCH_MIXED_RATE          (0 = flat out)
  --idle <s>                idle seconds before Till's RSS reading BENCH_IDLE                (3)
  --rounds <n>              run every scenario n times, interleaved, and report the median round
                                                                   BENCH_ROUNDS              (1)
  --only <list>             subset of ${SCENARIOS.join(',')}    BENCH_ONLY                (all)
  --pg-url <url>            PostgreSQL to create databases on      BENCH_PG_URL              (postgres://postgres@127.0.0.1:5432/test)
  --till-launch <how>       auto | cli (bin/till.js daemon run) | module (bench/auth/till-server.mjs)
                                                                   BENCH_TILL_LAUNCH         (auto)
  --cpu-prof <dir>          run Till under node --cpu-prof, write the profile to <dir> and print its hot spots
                                                                   BENCH_CPU_PROF
  --till-env K=V[,K=V]      extra environment for Till, for experiments (e.g. TILL_HASH_WORKERS=1); the run is
                            then not the default configuration and says so             BENCH_TILL_ENV
  --quick                   --duration 3 --warmup 1 --idle 1
  --help
`;

function parseOptions(argv, env) {
  const raw = {
    duration: env.BENCH_DURATION,
    warmup: env.BENCH_WARMUP,
    connections: env.BENCH_CONNECTIONS,
    'signin-connections': env.BENCH_SIGNIN_CONNECTIONS,
    'mixed-rate': env.BENCH_MIXED_RATE,
    idle: env.BENCH_IDLE,
    rounds: env.BENCH_ROUNDS,
    only: env.BENCH_ONLY,
    'pg-url': env.BENCH_PG_URL,
    'till-launch': env.BENCH_TILL_LAUNCH,
    'cpu-prof': env.BENCH_CPU_PROF,
    'till-env': env.BENCH_TILL_ENV,
  };
  let quick = false;
  const tillEnvFlags = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(HELP);
      process.exit(0);
    }
    if (arg === '--quick') {
      quick = true;
      continue;
    }
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!match || !(match[1] in raw)) usage(`unknown option ${arg}`);
    const value = match[2] ?? argv[++i];
    if (value === undefined) usage(`${arg} needs a value`);
    if (match[1] === 'till-env') tillEnvFlags.push(value); // may be given several times
    else raw[match[1]] = value;
  }
  const number = (name, fallback, min) => {
    const value = raw[name];
    if (value === undefined || value === '') return fallback;
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed < min) usage(`--${name} must be a number ≥ ${min} (got "${value}")`);
    return parsed;
  };
  const only = raw.only ? raw.only.split(',').map((s) => s.trim()).filter(Boolean) : SCENARIOS;
  for (const name of only) if (!SCENARIOS.includes(name)) usage(`--only: unknown scenario "${name}" (${SCENARIOS.join(', ')})`);
  const launch = raw['till-launch'] || 'auto';
  if (!['auto', 'cli', 'module'].includes(launch)) usage('--till-launch must be auto, cli or module');
  return {
    duration: number('duration', quick ? 3 : 10, 0.1),
    warmup: number('warmup', quick ? 1 : 2, 0),
    connections: Math.round(number('connections', 32, 1)),
    signinConnections: Math.round(number('signin-connections', 8, 1)),
    mixedRate: number('mixed-rate', 0, 0),
    idle: number('idle', quick ? 1 : 3, 0),
    rounds: Math.round(number('rounds', 1, 1)),
    only,
    pgUrl: raw['pg-url'] || 'postgres://postgres@127.0.0.1:5432/test',
    tillLaunch: launch,
    cpuProf: raw['cpu-prof'] ? resolve(raw['cpu-prof']) : null,
    tillEnv: parseTillEnv([raw['till-env'], ...tillEnvFlags].filter(Boolean).join(',')),
  };
}

function parseTillEnv(value) {
  const env = {};
  for (const pair of (value ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const eq = pair.indexOf('=');
    if (eq <= 0 || !pair.startsWith('TILL_')) usage(`--till-env takes TILL_NAME=value pairs (got "${pair}")`);
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return env;
}

function usage(message) {
  process.stderr.write(`bench:auth: ${message}\n\n${HELP}`);
  process.exit(2);
}

// ---------------------------------------------------------------------------------------------------------------
// Small helpers

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const log = (message) => process.stderr.write(`[bench] ${message}\n`);

function freePort() {
  return new Promise((done, fail) => {
    const server = createServer();
    server.unref();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU seconds (user + system, all threads) a process has used so far; null when /proc is not readable. */
function processCpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK; // utime, stime (fields 14 and 15 of stat)
  } catch {
    return null;
  }
}

/** Machine-wide busy and total jiffies, from /proc/stat. */
function systemCpu() {
  try {
    const values = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const total = values.reduce((sum, value) => sum + value, 0);
    const idle = values[3] + (values[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

/** Resident set size and its peak, in MB, from /proc/<pid>/status. */
function memoryOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMb: kb('VmRSS') / 1024, peakRssMb: kb('VmHWM') / 1024 };
  } catch {
    return { rssMb: null, peakRssMb: null };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Child processes and databases, cleaned up whatever happens

const children = new Set();
const databases = new Set();
const tempDirs = new Set();

function startChild(name, script, args, { env, execArgv = [] }) {
  const child = fork(script, args, { env, execArgv, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], cwd: ROOT });
  child.benchName = name;
  child.output = '';
  const keep = (chunk) => {
    child.output = (child.output + chunk.toString()).slice(-8000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.exited = new Promise((done) => child.once('exit', (code, signal) => done({ code, signal })));
  child.exited.then(() => children.delete(child));
  child.on('error', () => undefined);
  children.add(child);
  return child;
}

async function stopChild(child, timeoutMs = 6000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const exited = await Promise.race([child.exited.then(() => true), sleep(timeoutMs).then(() => false)]);
  if (!exited) {
    child.kill('SIGKILL');
    await child.exited;
  }
}

async function withAdmin(pgUrl, fn) {
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

function databaseUrl(pgUrl, name) {
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function createDatabase(pgUrl, name) {
  await withAdmin(pgUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  databases.add(name);
  return databaseUrl(pgUrl, name);
}

/** Drops databases left by runs that were killed outright (their orchestrator's pid is gone). */
async function dropStaleDatabases(pgUrl) {
  const names = await withAdmin(pgUrl, async (client) => (await client.query(`SELECT datname FROM pg_database WHERE datname LIKE 'bench\\_auth\\_%'`)).rows.map((r) => r.datname));
  for (const name of names) {
    const pid = Number(/^bench_auth_(\d+)_/.exec(name)?.[1]);
    if (!pid || pid === process.pid) continue;
    let alive = true;
    try {
      process.kill(pid, 0);
    } catch (error) {
      alive = error.code !== 'ESRCH';
    }
    if (alive) continue;
    log(`dropping ${name}, left behind by an earlier run (pid ${pid} is gone)`);
    await dropDatabase(pgUrl, name).catch((error) => log(`could not drop ${name}: ${error.message}`));
  }
}

async function dropDatabase(pgUrl, name) {
  await withAdmin(pgUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  databases.delete(name);
}

let cleaning = null;
function cleanup(pgUrl) {
  cleaning ??= (async () => {
    await Promise.all([...children].map((child) => stopChild(child, 4000).catch(() => undefined)));
    for (const name of [...databases]) {
      await dropDatabase(pgUrl, name).catch((error) => log(`could not drop database ${name}: ${error.message}`));
    }
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  })();
  return cleaning;
}

// ---------------------------------------------------------------------------------------------------------------
// Servers

class BenchError extends Error {}

async function waitUntilReady(child, baseUrl, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  child.exited.then(() => {
    exited = true;
  });
  while (Date.now() < deadline) {
    if (exited) break;
    try {
      const response = await request(`${baseUrl}/api/auth/ok`, { headersTimeout: 2000, bodyTimeout: 2000 });
      await response.body.dump();
      if (response.statusCode === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(exited ? 0 : 100);
  }
  await stopChild(child, 2000);
  const why = exited ? `exited (${JSON.stringify(await child.exited)})` : `not ready after ${timeoutMs / 1000} s`;
  throw new BenchError(`${child.benchName} failed to start: ${why}\n--- its output ---\n${child.output.trim()}\n---`);
}

function cliAvailable() {
  if (!existsSync(join(ROOT, 'dist/src/cli/index.js'))) return false;
  try {
    execFileSync(process.execPath, [join(ROOT, 'bin/till.js'), 'daemon', 'run', '--help'], { stdio: 'ignore', timeout: 15_000 });
    return true;
  } catch {
    return false;
  }
}

async function startTill(options, dbUrl) {
  if (!existsSync(join(ROOT, 'dist/src/daemon/server.js'))) throw new BenchError('dist/ is missing: run `npm run build` first');
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'till-bench-'));
  tempDirs.add(dataDir);
  const launch = options.tillLaunch === 'auto' ? (cliAvailable() ? 'cli' : 'module') : options.tillLaunch;
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    TILL_DATABASE_URL: dbUrl,
    TILL_SECRET: randomBytes(32).toString('base64url'),
    TILL_PORT: String(port),
    TILL_HOST: '127.0.0.1',
    TILL_RATE_LIMIT: 'off',
    TILL_DATA_DIR: dataDir,
    TILL_LOG_LEVEL: 'error',
  };
  // Defaults on purpose: bcrypt cost 10 and the default number of hash workers (what users get).
  delete env.TILL_BCRYPT_COST;
  delete env.TILL_HASH_WORKERS;
  delete env.TILL_BASE_URL;
  delete env.TILL_SESSION_COOKIE_CACHE;
  Object.assign(env, options.tillEnv);
  const execArgv = ['--import', pathToFileURL(join(HERE, 'exit-with-parent.mjs')).href];
  if (options.cpuProf) execArgv.push('--cpu-prof', '--cpu-prof-dir', options.cpuProf);
  const child =
    launch === 'cli'
      ? startChild('till (bin/till.js daemon run)', join(ROOT, 'bin/till.js'), ['daemon', 'run'], { env, execArgv })
      : startChild('till (bench/auth/till-server.mjs)', join(HERE, 'till-server.mjs'), [], { env, execArgv });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilReady(child, baseUrl);
  return { child, baseUrl, launch };
}

async function startBetterAuth(dbUrl) {
  const port = await freePort();
  const env = { ...process.env, NODE_ENV: 'production', BA_DATABASE_URL: dbUrl, BA_SECRET: randomBytes(32).toString('base64url'), BA_PORT: String(port) };
  for (const key of ['BETTER_AUTH_URL', 'BETTER_AUTH_SECRET', 'BETTER_AUTH_SECRETS', 'BETTER_AUTH_TRUSTED_ORIGINS', 'AUTH_SECRET']) delete env[key];
  const child = startChild('better-auth', join(HERE, 'better-auth-server.mjs'), [], { env });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilReady(child, baseUrl);
  return { child, baseUrl };
}

async function startKoa() {
  const port = await freePort();
  const child = startChild('bare koa', join(HERE, 'koa-server.mjs'), [], { env: { ...process.env, NODE_ENV: 'production', KOA_PORT: String(port) } });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilReady(child, baseUrl);
  return { child, baseUrl };
}

// ---------------------------------------------------------------------------------------------------------------
// Auth flows used to set the load up

function cookiesFrom(headers) {
  const raw = headers['set-cookie'];
  const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  const jar = [];
  for (const line of list) {
    if (/;\s*max-age=0(\s*;|$)/i.test(line)) continue;
    jar.push(line.split(';')[0].trim());
  }
  return jar.join('; ');
}

async function postJson(baseUrl, path, body, headers = {}) {
  const response = await request(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: baseUrl, ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, text };
}

/** Signs a user up and returns the session cookie header, after checking that get-session answers with it. */
async function signUpAndCheck(name, baseUrl, credentials) {
  const signUp = await postJson(baseUrl, '/api/auth/sign-up/email', { name: 'Bench User', ...credentials });
  if (signUp.status !== 200) throw new BenchError(`${name}: sign-up answered ${signUp.status} ${signUp.text.slice(0, 300)}`);
  const cookie = cookiesFrom(signUp.headers);
  if (!cookie.includes('session_token=')) throw new BenchError(`${name}: sign-up set no session cookie`);
  const check = await request(`${baseUrl}/api/auth/get-session`, { headers: { cookie } });
  const body = await check.body.text();
  let parsed = null;
  try {
    parsed = JSON.parse(body);
  } catch {
    // reported below
  }
  if (check.statusCode !== 200 || parsed?.user?.email !== credentials.email) {
    throw new BenchError(`${name}: get-session with the new cookie answered ${check.statusCode} ${body.slice(0, 300)}`);
  }
  const signIn = await postJson(baseUrl, '/api/auth/sign-in/email', credentials);
  if (signIn.status !== 200 || !signIn.text.includes('"token"')) {
    throw new BenchError(`${name}: sign-in answered ${signIn.status} ${signIn.text.slice(0, 300)}`);
  }
  return cookie;
}

// ---------------------------------------------------------------------------------------------------------------
// Load

/**
 * Runs one load process. `server` is the process under load (for its CPU use over the measured window).
 * Returns {result, stop()} where result is a promise; stop() ends a run started with durationMs null.
 */
function startLoad(name, spec, server) {
  const child = startChild(`load: ${name}`, join(HERE, 'load.mjs'), [], { env: process.env, execArgv: ['--max-semi-space-size=32'] });
  let serverCpu0 = null;
  let system0 = null;
  const result = new Promise((done, fail) => {
    child.on('message', (message) => {
      if (message.type === 'measuring') {
        serverCpu0 = processCpuSeconds(server.pid);
        system0 = systemCpu();
      } else if (message.type === 'result') {
        const r = message.result;
        const serverCpu1 = processCpuSeconds(server.pid);
        const system1 = systemCpu();
        if (serverCpu0 !== null && serverCpu1 !== null && r.windowSeconds > 0) {
          r.serverCpuPercent = ((serverCpu1 - serverCpu0) / r.windowSeconds) * 100;
          // CPU the server spent per answered request: less sensitive than req/s to what else runs on the machine.
          if (r.requests > 0) r.serverCpuMicrosPerRequest = ((serverCpu1 - serverCpu0) * 1e6) / r.requests;
        }
        if (system0 && system1 && system1.total > system0.total) {
          r.machineBusyPercent = ((system1.busy - system0.busy) / (system1.total - system0.total)) * 100;
        }
        done(r);
      } else if (message.type === 'failed') {
        fail(new BenchError(`load ${name} failed: ${message.error}`));
      }
    });
    child.exited.then(({ code, signal }) => fail(new BenchError(`load ${name} exited (${code ?? signal}) without a result\n${child.output}`)));
  });
  result.catch(() => undefined); // a run abandoned after another failed must not crash the cleanup
  child.send({ type: 'run', spec });
  return { result, stop: () => child.connected && child.send({ type: 'stop' }) };
}

function getSessionSpec(options, baseUrl, cookie, extra = {}) {
  return {
    origin: baseUrl,
    path: '/api/auth/get-session',
    method: 'GET',
    headers: cookie ? { cookie } : {},
    connections: options.connections,
    warmupMs: options.warmup * 1000,
    durationMs: options.duration * 1000,
    expectStatus: 200,
    expectText: '"session"',
    ...extra,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Output

const fmt = (value, digits = 1) => (value === null || value === undefined || Number.isNaN(value) ? '-' : value.toFixed(digits));
const pad = (text, width, right = false) => (right ? String(text).padStart(width) : String(text).padEnd(width));

function table(rows) {
  const header = ['scenario', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'errors', 'server CPU', 'CPU us/req', 'loader CPU', 'machine busy'];
  const widths = [46, 9, 8, 8, 8, 8, 7, 11, 11, 11, 13];
  const line = (cells) => cells.map((cell, i) => pad(cell, widths[i], i > 0)).join(' ');
  const out = [line(header), line(widths.map((w) => '-'.repeat(w)))];
  for (const [label, r] of rows) {
    if (!r) continue;
    out.push(
      line([
        label,
        fmt(r.rps, 0),
        fmt(r.latencyMs.p50, 2),
        fmt(r.latencyMs.p90, 2),
        fmt(r.latencyMs.p99, 2),
        fmt(r.latencyMs.max, 1),
        String(r.errors),
        r.serverCpuPercent === undefined ? '-' : `${fmt(r.serverCpuPercent, 0)} %`,
        r.serverCpuMicrosPerRequest === undefined ? '-' : fmt(r.serverCpuMicrosPerRequest, 0),
        `${fmt(r.loaderCpuPercent, 0)} %`,
        r.machineBusyPercent === undefined ? '-' : `${fmt(r.machineBusyPercent, 0)} %`,
      ]),
    );
  }
  return out.join('\n');
}

function goalLine(label, value, text, passed) {
  const verdict = passed === null ? 'n/a ' : passed ? 'MET ' : 'MISSED';
  return `  ${pad(label, 58)} ${pad(value, 12, true)}   ${pad(text, 14)} ${verdict}`;
}

function checkErrors(name, result, failures) {
  if (!result) return;
  const total = result.requests + result.errors;
  if (total === 0) failures.push(`${name}: no request completed in the measured window`);
  else if (result.errors / total > 0.01) {
    failures.push(`${name}: ${result.errors} of ${total} requests failed (${JSON.stringify(result.badStatuses)}): ${result.badSamples.join(' | ')}`);
  } else if (result.errors > 0) {
    log(`warning: ${name}: ${result.errors} of ${total} requests failed: ${result.badSamples.join(' | ')}`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Main

async function main(options) {
  const runId = `${process.pid}_${randomBytes(3).toString('hex')}`;
  const results = {};
  const memory = {};
  let tillLaunch = null;
  let tillPid = null;
  let pgVersion = null;

  try {
    pgVersion = await withAdmin(options.pgUrl, async (client) => (await client.query('SHOW server_version')).rows[0].server_version);
  } catch (error) {
    throw new BenchError(`cannot reach PostgreSQL at ${options.pgUrl}: ${error.message}`);
  }
  await dropStaleDatabases(options.pgUrl);
  if (options.cpuProf && existsSync(options.cpuProf)) {
    // remember what was there so only this run's profile is summarised
    options.cpuProfBefore = new Set(readdirSync(options.cpuProf));
  }
  // How busy the machine is before anything starts: other work on a 2-core box skews every figure.
  const before = systemCpu();
  await sleep(1000);
  const after = systemCpu();
  const machineIdleBusy = before && after && after.total > before.total ? ((after.busy - before.busy) / (after.total - before.total)) * 100 : null;
  if (machineIdleBusy !== null && machineIdleBusy > 15) log(`warning: the machine is ${machineIdleBusy.toFixed(0)} % busy before the run; figures will be noisy`);
  log(`PostgreSQL ${pgVersion}; ${options.duration} s measured after ${options.warmup} s warm-up, ${options.connections} connections`);

  // --- Start the servers one after the other (Till first, so its idle RSS is read on a quiet machine), each on its
  // own database, and keep them for every round: an idle server costs no CPU.
  const wantTill = options.only.includes('till') || options.only.includes('mixed');
  const credentials = { email: `bench-${runId}@example.com`, password: 'correct horse battery staple' };
  let till = null;
  let ba = null;
  let koa = null;
  if (wantTill) {
    const dbUrl = await createDatabase(options.pgUrl, `bench_auth_${runId}_till`);
    till = await startTill(options, dbUrl);
    tillLaunch = till.launch;
    tillPid = till.child.pid;
    log(`till started (${till.launch}) at ${till.baseUrl}, pid ${till.child.pid}; idle ${options.idle} s`);
    await sleep(options.idle * 1000);
    memory.tillIdle = memoryOf(till.child.pid);
    till.cookie = await signUpAndCheck('till', till.baseUrl, credentials);
  }
  if (options.only.includes('better-auth')) {
    const dbUrl = await createDatabase(options.pgUrl, `bench_auth_${runId}_ba`);
    ba = await startBetterAuth(dbUrl);
    log(`better-auth started at ${ba.baseUrl}, pid ${ba.child.pid}`);
    await sleep(Math.min(options.idle, 1) * 1000);
    memory.betterAuthIdle = memoryOf(ba.child.pid);
    ba.cookie = await signUpAndCheck('better-auth', ba.baseUrl, credentials);
  }
  if (options.only.includes('koa')) {
    koa = await startKoa();
    log(`bare koa started at ${koa.baseUrl}, pid ${koa.child.pid}`);
    await sleep(Math.min(options.idle, 1) * 1000);
    memory.koaIdle = memoryOf(koa.child.pid);
  }

  // --- The scenarios, round after round (interleaved, so a burst of outside load hits one round, not one system)
  const rounds = { till: [], betterAuth: [], koa: [], mixed: [], mixedSignIn: [] };
  for (let round = 1; round <= options.rounds; round++) {
    const tag = options.rounds > 1 ? ` (round ${round}/${options.rounds})` : '';
    if (options.only.includes('till')) {
      log(`till: GET /api/auth/get-session${tag}`);
      rounds.till.push(await startLoad('till get-session', getSessionSpec(options, till.baseUrl, till.cookie), till.child).result);
    }
    if (ba) {
      log(`better-auth: GET /api/auth/get-session${tag}`);
      rounds.betterAuth.push(await startLoad('better-auth get-session', getSessionSpec(options, ba.baseUrl, ba.cookie), ba.child).result);
    }
    if (koa) {
      log(`bare koa: GET /api/auth/get-session (constant JSON)${tag}`);
      rounds.koa.push(await startLoad('bare koa', getSessionSpec(options, koa.baseUrl, null), koa.child).result);
    }
    if (options.only.includes('mixed')) {
      log(`till: GET /api/auth/get-session while POST /api/auth/sign-in/email runs on ${options.signinConnections} connections${tag}`);
      const signIns = startLoad(
        'till sign-in',
        {
          origin: till.baseUrl,
          path: '/api/auth/sign-in/email',
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: till.baseUrl },
          body: JSON.stringify(credentials),
          connections: options.signinConnections,
          warmupMs: 0,
          durationMs: null,
          expectStatus: 200,
          expectText: '"token"',
        },
        till.child,
      );
      // Let the sign-ins saturate the hash workers before get-session's warm-up starts.
      await sleep(500);
      const mixed = startLoad('till get-session (mixed)', getSessionSpec(options, till.baseUrl, till.cookie, { rate: options.mixedRate }), till.child);
      try {
        const mixedResult = await mixed.result;
        delete mixedResult.serverCpuMicrosPerRequest; // the sign-ins' hashing is in the server's CPU too
        rounds.mixed.push(mixedResult);
      } finally {
        signIns.stop();
      }
      const signInResult = await signIns.result;
      // Its window is longer than get-session's and the server's CPU is shared by both loads: not comparable.
      delete signInResult.serverCpuPercent;
      delete signInResult.serverCpuMicrosPerRequest;
      rounds.mixedSignIn.push(signInResult);
    }
  }
  if (till) memory.tillAfterLoad = memoryOf(till.child.pid);
  if (ba) memory.betterAuthAfterLoad = memoryOf(ba.child.pid);
  await Promise.all([till, ba, koa].filter(Boolean).map((server) => stopChild(server.child)));
  // Anything a server said beyond its start-up line (errors, warnings) goes to stderr, for a look.
  for (const server of [till, ba, koa].filter(Boolean)) {
    const said = server.child.output
      .split('\n')
      .filter((line) => line.trim() && !/listening on|SIGTERM received|^(till: )?stopped$/i.test(line.trim()));
    if (said.length) log(`${server.child.benchName} said:\n  ${said.slice(-20).join('\n  ')}`);
  }
  for (const name of [...databases]) await dropDatabase(options.pgUrl, name);

  // One round stands for each scenario: the median one (by req/s; by p99 for the mixed run, whose goal is p99), so
  // its figures belong together. Every round is in the JSON.
  const median = (list, score) => (list.length ? [...list].sort((a, b) => score(a) - score(b))[Math.floor((list.length - 1) / 2)] : undefined);
  results.till = median(rounds.till, (r) => r.rps);
  results.betterAuth = median(rounds.betterAuth, (r) => r.rps);
  results.koa = median(rounds.koa, (r) => r.rps);
  results.mixed = median(rounds.mixed, (r) => r.latencyMs.p99 ?? Infinity);
  results.mixedSignIn = rounds.mixedSignIn[rounds.mixed.indexOf(results.mixed)];
  for (const key of Object.keys(results)) if (results[key] === undefined) delete results[key];

  // --- Report
  const failures = [];
  const labels = { till: 'till get-session', mixed: 'till get-session (mixed)', mixedSignIn: 'till sign-in (mixed)', betterAuth: 'better-auth get-session', koa: 'bare koa' };
  for (const [key, label] of Object.entries(labels)) {
    rounds[key].forEach((result, i) => checkErrors(options.rounds > 1 ? `${label}, round ${i + 1}` : label, result, failures));
  }

  const ratio = (a, b) => (a && b && b.rps > 0 ? a.rps / b.rps : null);
  const ratios = {
    tillOverBetterAuth: ratio(results.till, results.betterAuth),
    tillOverKoa: ratio(results.till, results.koa),
  };
  const mixedP99 = results.mixed?.latencyMs.p99 ?? null;
  const goals = {
    tillOverBetterAuth: { goal: `>= ${GOALS.tillOverBetterAuth}x`, value: ratios.tillOverBetterAuth, met: ratios.tillOverBetterAuth === null ? null : ratios.tillOverBetterAuth >= GOALS.tillOverBetterAuth },
    tillOverKoa: { goal: `>= ${GOALS.tillOverKoa * 100}%`, value: ratios.tillOverKoa, met: ratios.tillOverKoa === null ? null : ratios.tillOverKoa >= GOALS.tillOverKoa },
    mixedGetSessionP99Ms: { goal: `< ${GOALS.mixedP99Ms} ms`, value: mixedP99, met: mixedP99 === null ? null : mixedP99 < GOALS.mixedP99Ms },
  };

  const paced = options.mixedRate > 0 ? `, paced at ${options.mixedRate} req/s` : '';
  const out = [];
  out.push('');
  out.push(
    `Auth benchmark: ${options.connections} connections, ${options.warmup} s warm-up + ${options.duration} s measured` +
      `${options.rounds > 1 ? `, median of ${options.rounds} rounds` : ''}; ` +
      `Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? '?'}), PostgreSQL ${pgVersion}`,
  );
  const tillEnvText = Object.entries(options.tillEnv).map(([k, v]) => `${k}=${v}`).join(' ');
  out.push(
    `Till launched via ${tillLaunch === 'cli' ? 'bin/till.js daemon run' : tillLaunch === 'module' ? 'bench/auth/till-server.mjs (startDaemon)' : '-'}; rate limits off; ` +
      (tillEnvText ? `NOT the default configuration: ${tillEnvText}` : 'bcrypt cost 10, default hash workers'),
  );
  if (machineIdleBusy !== null) {
    out.push(`Machine ${fmt(machineIdleBusy, 0)} % busy in the second before the run${machineIdleBusy > 15 ? ' -- something else is running; figures will be noisy' : ''}`);
  }
  out.push('');
  out.push(
    table([
      ['Till         GET /api/auth/get-session', results.till],
      ['Better Auth  GET /api/auth/get-session', results.betterAuth],
      ['bare Koa     GET constant JSON', results.koa],
      [`Till         get-session during sign-ins${paced}`, results.mixed],
      [`Till         POST /sign-in/email (${options.signinConnections} conns, same time)`, results.mixedSignIn],
    ]),
  );
  out.push('');
  const memoryParts = [];
  if (memory.tillIdle) memoryParts.push(`Till idle ${fmt(memory.tillIdle.rssMb)} (after load ${fmt(memory.tillAfterLoad?.rssMb)}, peak ${fmt(memory.tillAfterLoad?.peakRssMb)})`);
  if (memory.betterAuthIdle) memoryParts.push(`Better Auth idle ${fmt(memory.betterAuthIdle.rssMb)} (peak ${fmt(memory.betterAuthAfterLoad?.peakRssMb)})`);
  if (memory.koaIdle) memoryParts.push(`bare Koa idle ${fmt(memory.koaIdle.rssMb)}`);
  if (memoryParts.length) out.push(`Memory (RSS, MB): ${memoryParts.join('; ')}`);
  out.push('');
  out.push('Goals:');
  out.push(goalLine('Till / Better Auth, get-session req/s', ratios.tillOverBetterAuth === null ? '-' : `${fmt(ratios.tillOverBetterAuth, 1)}x`, goals.tillOverBetterAuth.goal, goals.tillOverBetterAuth.met));
  out.push(goalLine('Till / bare Koa, req/s', ratios.tillOverKoa === null ? '-' : `${fmt(ratios.tillOverKoa * 100, 0)} %`, goals.tillOverKoa.goal, goals.tillOverKoa.met));
  out.push(goalLine('Till get-session p99 while sign-ins run flat out', mixedP99 === null ? '-' : `${fmt(mixedP99, 1)} ms`, goals.mixedGetSessionP99Ms.goal, goals.mixedGetSessionP99Ms.met));
  out.push(goalLine('Till idle RSS (informational)', memory.tillIdle ? `${fmt(memory.tillIdle.rssMb)} MB` : '-', '', null));
  if (failures.length) {
    out.push('');
    out.push('FAILED:');
    for (const failure of failures) out.push(`  ${failure}`);
  }

  let profile = null;
  if (options.cpuProf) {
    // node --cpu-prof writes one profile per thread, CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile; thread 0 is
    // the event loop, the others are the hash workers.
    const files = existsSync(options.cpuProf) ? readdirSync(options.cpuProf).filter((f) => f.endsWith('.cpuprofile') && !options.cpuProfBefore?.has(f)) : [];
    const main = files.filter((f) => /^CPU\.\d+\.\d+\.(\d+)\.0\.\d+\.cpuprofile$/.exec(f)?.[1] === String(tillPid));
    if (main.length) {
      profile = join(options.cpuProf, main.sort().at(-1));
      out.push('');
      out.push(`Till CPU profile (event loop thread; ${files.length - 1} other thread profiles beside it): ${profile}`);
      out.push(summarizeProfile(profile, 25));
    } else {
      out.push('', `Till CPU profile: none written to ${options.cpuProf}`);
    }
  }

  process.stdout.write(out.join('\n') + '\n\n');
  const json = {
    bench: 'auth',
    ok: failures.length === 0,
    config: {
      durationSeconds: options.duration,
      warmupSeconds: options.warmup,
      connections: options.connections,
      signinConnections: options.signinConnections,
      mixedRate: options.mixedRate,
      rounds: options.rounds,
      tillLaunch,
      tillEnv: options.tillEnv,
      machineBusyBeforePercent: machineIdleBusy,
      node: process.version,
      cpus: cpus().length,
      postgres: pgVersion,
    },
    results,
    rounds: options.rounds > 1 ? rounds : undefined,
    memoryMb: memory,
    tillIdleRssMb: memory.tillIdle?.rssMb ?? null,
    ratios,
    goals,
    failures,
    cpuProfile: profile,
  };
  process.stdout.write(JSON.stringify(json) + '\n');
  return failures.length === 0 ? 0 : 1;
}

const options = parseOptions(process.argv.slice(2), process.env);
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    log(`${signal}: cleaning up`);
    cleanup(options.pgUrl).finally(() => process.exit(130));
  });
}

let code = 1;
try {
  code = await main(options);
} catch (error) {
  if (!interrupted) process.stderr.write(`bench:auth: ${error instanceof BenchError ? error.message : error.stack ?? error}\n`);
  code = 1;
} finally {
  await cleanup(options.pgUrl);
}
process.exit(code);
