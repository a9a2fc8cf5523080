// What the auth and API-key benchmarks (bench/auth/run.js, bench/api-key/run.js) run on: CPU and memory readings
// from /proc, child processes and PostgreSQL databases that are cleaned up whatever happens, Till's environment,
// waiting for a server, small HTTP helpers, and the load processes (load.mjs).
import { execFileSync, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { request } from 'undici';

export const HERE = dirname(fileURLToPath(import.meta.url));
export const ROOT = resolve(HERE, '../..');
const { daemonEnvironment } = await import(pathToFileURL(join(ROOT, 'dist/src/cli/commands/daemon/process.js')).href);

/** An expected failure: reported by its message alone, without a stack. */
export class BenchError extends Error {}

// ---------------------------------------------------------------------------------------------------------------
// Small helpers and readings

export const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
export const log = (message) => process.stderr.write(`[bench] ${message}\n`);

export function freePort() {
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
export function processCpuSeconds(pid) {
  return cpuSecondsOf(`/proc/${pid}/stat`);
}

/** CPU seconds one thread of a process has used (its main thread by default, whose id is the process's). */
export function threadCpuSeconds(pid, tid = pid) {
  return cpuSecondsOf(`/proc/${pid}/task/${tid}/stat`);
}

/** Two adjacent CPU times of a /proc stat, in seconds: its own (utime, stime) by default. */
function cpuSecondsOf(path, first = 11) {
  const fields = statFields(path);
  return fields === null ? null : (Number(fields[first]) + Number(fields[first + 1])) / CLK_TCK;
}

/** A /proc stat's fields after the command's name: [0] is field 3 of proc(5) (the state), [1] the parent's id, … */
function statFields(path) {
  try {
    const stat = readFileSync(path, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/**
 * What PostgreSQL's backends serving one database (their process titles name it) have used so far, from /proc, for
 * databaseCpuSecondsSince; null on SQLite or where /proc cannot be read. A backend that exits takes its figure in
 * /proc with it, and the pool closes idle connections: the postmaster's count of its reaped children's CPU keeps
 * what they used.
 */
export function databaseCpuSnapshot(dbUrl) {
  if (!dbUrl.startsWith('postgres')) return null;
  const name = new URL(dbUrl).pathname.slice(1);
  const backends = new Map();
  let postmaster = null;
  try {
    for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
      let title;
      try {
        title = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      } catch {
        continue;
      }
      if (!title.startsWith('postgres:')) continue;
      // Every process so titled (the checkpointer too) is the postmaster's child.
      postmaster ??= statFields(`/proc/${pid}/stat`)?.[1] ?? null;
      if (!title.split(' ').includes(name)) continue;
      const seconds = processCpuSeconds(pid);
      if (seconds !== null) backends.set(pid, seconds);
    }
  } catch {
    return null;
  }
  return { dbUrl, backends, reaped: postmaster === null ? null : reapedCpuSeconds(postmaster) };
}

/**
 * CPU seconds this database's backends used since the snapshot: the change of those alive at both ends, all of those
 * started since, and what those that exited used after it (the postmaster's reaped children, less their figure at the
 * snapshot). Other databases' backends that exited meanwhile count too: few, where the bench runs alone.
 */
export function databaseCpuSecondsSince(snapshot) {
  if (snapshot === null) return null;
  const now = databaseCpuSnapshot(snapshot.dbUrl);
  if (now === null) return null;
  let total = 0;
  for (const [pid, seconds] of now.backends) total += seconds - (snapshot.backends.get(pid) ?? 0);
  const gone = [...snapshot.backends].filter(([pid]) => !now.backends.has(pid));
  if (snapshot.reaped === null || now.reaped === null) return gone.length > 0 ? null : total;
  return total + now.reaped - snapshot.reaped - gone.reduce((sum, [, seconds]) => sum + seconds, 0);
}

/** CPU seconds a process's exited and reaped children used (cutime, cstime). */
function reapedCpuSeconds(pid) {
  return cpuSecondsOf(`/proc/${pid}/stat`, 13);
}

/**
 * The WAL PostgreSQL has written and the checkpoints it has made so far (server-wide: `pg_stat_wal`,
 * `pg_stat_bgwriter`); null on SQLite, or where the server cannot say (before PostgreSQL 14).
 */
export async function postgresWal(dbUrl) {
  if (!dbUrl.startsWith('postgres')) return null;
  try {
    return await withAdmin(dbUrl, async (client) => {
      const { rows } = await client.query(
        'SELECT (SELECT wal_bytes FROM pg_stat_wal) AS bytes, (SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter) AS checkpoints',
      );
      return { bytes: Number(rows[0].bytes), checkpoints: Number(rows[0].checkpoints) };
    });
  } catch {
    return null;
  }
}

/** Machine-wide busy and total jiffies, from /proc/stat. */
export function systemCpu() {
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
export function memoryOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMb: kb('VmRSS') / 1024, peakRssMb: kb('VmHWM') / 1024 };
  } catch {
    return { rssMb: null, peakRssMb: null };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Child processes, databases and temporary directories, cleaned up whatever happens

const children = new Set();
const databases = new Set();
const tempDirs = new Set();

export function startChild(name, script, args, { env, execArgv = [] }) {
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

export async function stopChild(child, timeoutMs = 6000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const exited = await Promise.race([child.exited.then(() => true), sleep(timeoutMs).then(() => false)]);
  if (!exited) {
    child.kill('SIGKILL');
    await child.exited;
  }
}

export async function withAdmin(pgUrl, fn) {
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

export async function createDatabase(pgUrl, name) {
  await withAdmin(pgUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  databases.add(name);
  return databaseUrl(pgUrl, name);
}

/** Drops databases left by runs that were killed outright (their orchestrator's pid is gone). */
export async function dropStaleDatabases(pgUrl) {
  const names = await withAdmin(pgUrl, async (client) =>
    (await client.query(`SELECT datname FROM pg_database WHERE datname LIKE 'bench\\_auth\\_%'`)).rows.map(
      (r) => r.datname,
    ),
  );
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

export async function dropDatabase(pgUrl, name) {
  await withAdmin(pgUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  databases.delete(name);
}

/** Drops every database this run created and has not dropped yet. */
export async function dropDatabases(pgUrl) {
  for (const name of [...databases]) await dropDatabase(pgUrl, name);
}

/** A new temporary directory, removed by cleanup(). */
export function makeTempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

let cleaning = null;
export function cleanup(pgUrl) {
  cleaning ??= (async () => {
    await Promise.all([...children].map((child) => stopChild(child, 4000).catch(() => undefined)));
    for (const name of [...databases]) {
      await dropDatabase(pgUrl, name).catch((error) => log(`could not drop database ${name}: ${error.message}`));
    }
    // BENCH_KEEP=1 leaves the SQLite files and data folders behind, to look into after a run.
    if (!process.env.BENCH_KEEP) for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  })();
  return cleaning;
}

// ---------------------------------------------------------------------------------------------------------------
// Servers and HTTP

/** node options that make a forked server exit when the benchmark that forked it goes away (exit-with-parent.mjs). */
export const EXIT_WITH_PARENT = Object.freeze(['--import', pathToFileURL(join(HERE, 'exit-with-parent.mjs')).href]);

/**
 * The environment a benchmarked Till daemon runs with: production, on 127.0.0.1:<port>, rate limits off, and what
 * Till's launchers add (`till daemon start`, `npm start`, the image: glibc's arenas limited, daemonEnvironment).
 */
export function tillEnv({ dbUrl, port, dataDir }) {
  return {
    ...daemonEnvironment(process.env),
    NODE_ENV: 'production',
    TILL_DATABASE_URL: dbUrl,
    TILL_SECRET: randomBytes(32).toString('base64url'),
    TILL_PORT: String(port),
    TILL_HOST: '127.0.0.1',
    TILL_RATE_LIMIT: 'off',
    TILL_DATA_DIR: dataDir,
    TILL_LOG_LEVEL: 'error',
  };
}

/** Logs anything a stopped server said beyond its start-up and shut-down lines (errors, warnings), for a look. */
export function logServerOutput(child) {
  const said = child.output
    .split('\n')
    .filter((line) => line.trim() && !/listening on|SIGTERM received|^(till: )?stopped$/i.test(line.trim()));
  if (said.length) log(`${child.benchName} said:\n  ${said.slice(-20).join('\n  ')}`);
}

export async function waitUntilReady(child, baseUrl, timeoutMs = 60_000) {
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

export function cookiesFrom(headers) {
  const raw = headers['set-cookie'];
  const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  const jar = [];
  for (const line of list) {
    if (/;\s*max-age=0(\s*;|$)/i.test(line)) continue;
    jar.push(line.split(';')[0].trim());
  }
  return jar.join('; ');
}

/** One request from the server's own origin, with `body` (if any) sent as JSON; answers {status, headers, text}. */
export async function requestText(baseUrl, path, { method = 'GET', headers = {}, body } = {}) {
  const response = await request(`${baseUrl}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), origin: baseUrl, ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, text };
}

export const postJson = (baseUrl, path, body, headers = {}) =>
  requestText(baseUrl, path, { method: 'POST', headers, body });

// ---------------------------------------------------------------------------------------------------------------
// Load

/**
 * Runs one load process. `server` is the process under load (for its CPU use over the measured window).
 * `script` is the load generator: load.mjs unless a benchmark brings its own that speaks the same IPC protocol
 * (bench/checkout/load.mjs).
 * Returns {result, stop()} where result is a promise; stop() ends a run started with durationMs null.
 */
export function startLoad(name, spec, server, script = join(HERE, 'load.mjs')) {
  const child = startChild(`load: ${name}`, script, [], { env: process.env, execArgv: ['--max-semi-space-size=32'] });
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
    child.exited.then(({ code, signal }) =>
      fail(new BenchError(`load ${name} exited (${code ?? signal}) without a result\n${child.output}`)),
    );
  });
  result.catch(() => undefined); // a run abandoned after another failed must not crash the cleanup
  child.send({ type: 'run', spec });
  return { result, stop: () => child.connected && child.send({ type: 'stop' }) };
}
