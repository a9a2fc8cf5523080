#!/usr/bin/env node
// Auth benchmark: Till's /api/auth against Better Auth 1.7.25 and a bare Koa app, side by side in one run on the
// same PostgreSQL server. Every server runs in its own child process on its own fresh database (created and dropped
// here); the load comes from separate child processes (load.mjs, undici). See `node bench/auth/run.js --help`.
//
// Prints a table and, last, one JSON line with every figure. Exits 1 when a server fails to start or a scenario
// sees failed requests (more than 1 %); missing a performance goal is reported, not an error.
//
// The scenario flow lives here; options.mjs reads the options, harness.mjs runs processes and databases and takes the
// readings, report.mjs formats the results.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import {
  BenchError,
  EXIT_WITH_PARENT,
  HERE,
  ROOT,
  cleanup,
  cookiesFrom,
  createDatabase,
  dropDatabases,
  dropStaleDatabases,
  freePort,
  log,
  logServerOutput,
  makeTempDir,
  memoryOf,
  postJson,
  sleep,
  startChild,
  startLoad,
  stopChild,
  systemCpu,
  tillEnv,
  waitUntilReady,
  withAdmin,
} from './harness.mjs';
import { parseOptions } from './options.mjs';
import { summarizeProfile } from './profile-summary.mjs';
import { assessGoals, failuresOf, median, summaryLines } from './report.mjs';

// ---------------------------------------------------------------------------------------------------------------
// Servers

function cliAvailable() {
  if (!existsSync(join(ROOT, 'dist/src/cli/index.js'))) return false;
  try {
    execFileSync(process.execPath, [join(ROOT, 'bin/till.js'), 'daemon', 'run', '--help'], {
      stdio: 'ignore',
      timeout: 15_000,
    });
    return true;
  } catch {
    return false;
  }
}

async function startTill(options, dbUrl) {
  if (!existsSync(join(ROOT, 'dist/src/daemon/server.js')))
    throw new BenchError('dist/ is missing: run `npm run build` first');
  const port = await freePort();
  const dataDir = makeTempDir('till-bench-');
  const launch = options.tillLaunch === 'auto' ? (cliAvailable() ? 'cli' : 'module') : options.tillLaunch;
  const env = tillEnv({ dbUrl, port, dataDir });
  // Defaults on purpose: bcrypt cost 10 and the default number of hash workers (what users get).
  delete env.TILL_BCRYPT_COST;
  delete env.TILL_HASH_WORKERS;
  delete env.TILL_BASE_URL;
  delete env.TILL_SESSION_COOKIE_CACHE;
  Object.assign(env, options.tillEnv);
  const execArgv = [...EXIT_WITH_PARENT];
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
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    BA_DATABASE_URL: dbUrl,
    BA_SECRET: randomBytes(32).toString('base64url'),
    BA_PORT: String(port),
  };
  for (const key of [
    'BETTER_AUTH_URL',
    'BETTER_AUTH_SECRET',
    'BETTER_AUTH_SECRETS',
    'BETTER_AUTH_TRUSTED_ORIGINS',
    'AUTH_SECRET',
  ])
    delete env[key];
  const child = startChild('better-auth', join(HERE, 'better-auth-server.mjs'), [], { env });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilReady(child, baseUrl);
  return { child, baseUrl };
}

async function startKoa() {
  const port = await freePort();
  const child = startChild('bare koa', join(HERE, 'koa-server.mjs'), [], {
    env: { ...process.env, NODE_ENV: 'production', KOA_PORT: String(port) },
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilReady(child, baseUrl);
  return { child, baseUrl };
}

// ---------------------------------------------------------------------------------------------------------------
// Auth flows used to set the load up

/** Signs a user up and returns the session cookie header, after checking that get-session answers with it. */
async function signUpAndCheck(name, baseUrl, credentials) {
  const signUp = await postJson(baseUrl, '/api/auth/sign-up/email', { name: 'Bench User', ...credentials });
  if (signUp.status !== 200)
    throw new BenchError(`${name}: sign-up answered ${signUp.status} ${signUp.text.slice(0, 300)}`);
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
// Load (run by startLoad in harness.mjs)

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
// Main

async function main(options) {
  const runId = `${process.pid}_${randomBytes(3).toString('hex')}`;
  const results = {};
  const memory = {};
  let tillLaunch = null;
  let tillPid = null;
  let pgVersion = null;

  try {
    pgVersion = await withAdmin(
      options.pgUrl,
      async (client) => (await client.query('SHOW server_version')).rows[0].server_version,
    );
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
  const machineIdleBusy =
    before && after && after.total > before.total
      ? ((after.busy - before.busy) / (after.total - before.total)) * 100
      : null;
  if (machineIdleBusy !== null && machineIdleBusy > 15)
    log(`warning: the machine is ${machineIdleBusy.toFixed(0)} % busy before the run; figures will be noisy`);
  log(
    `PostgreSQL ${pgVersion}; ${options.duration} s measured after ${options.warmup} s warm-up, ${options.connections} connections`,
  );

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
      rounds.till.push(
        await startLoad('till get-session', getSessionSpec(options, till.baseUrl, till.cookie), till.child).result,
      );
    }
    if (ba) {
      log(`better-auth: GET /api/auth/get-session${tag}`);
      rounds.betterAuth.push(
        await startLoad('better-auth get-session', getSessionSpec(options, ba.baseUrl, ba.cookie), ba.child).result,
      );
    }
    if (koa) {
      log(`bare koa: GET /api/auth/get-session (constant JSON)${tag}`);
      rounds.koa.push(await startLoad('bare koa', getSessionSpec(options, koa.baseUrl, null), koa.child).result);
    }
    if (options.only.includes('mixed')) {
      log(
        `till: GET /api/auth/get-session while POST /api/auth/sign-in/email runs on ${options.signinConnections} connections${tag}`,
      );
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
      const mixed = startLoad(
        'till get-session (mixed)',
        getSessionSpec(options, till.baseUrl, till.cookie, { rate: options.mixedRate }),
        till.child,
      );
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
  for (const server of [till, ba, koa].filter(Boolean)) logServerOutput(server.child);
  await dropDatabases(options.pgUrl);

  // One round stands for each scenario: the median one (by req/s; by p99 for the mixed run, whose goal is p99), so
  // its figures belong together. Every round is in the JSON.
  results.till = median(rounds.till, (r) => r.rps);
  results.betterAuth = median(rounds.betterAuth, (r) => r.rps);
  results.koa = median(rounds.koa, (r) => r.rps);
  results.mixed = median(rounds.mixed, (r) => r.latencyMs.p99 ?? Infinity);
  results.mixedSignIn = rounds.mixedSignIn[rounds.mixed.indexOf(results.mixed)];
  for (const key of Object.keys(results)) if (results[key] === undefined) delete results[key];

  // --- Report
  const failures = failuresOf(options, rounds);
  const { ratios, mixedP99, goals } = assessGoals(results);
  const out = summaryLines({
    options,
    pgVersion,
    tillLaunch,
    machineIdleBusy,
    results,
    memory,
    ratios,
    mixedP99,
    goals,
    failures,
  });

  let profile = null;
  if (options.cpuProf) {
    // node --cpu-prof writes one profile per thread, CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile; thread 0 is
    // the event loop, the others are the hash workers.
    const files = existsSync(options.cpuProf)
      ? readdirSync(options.cpuProf).filter((f) => f.endsWith('.cpuprofile') && !options.cpuProfBefore?.has(f))
      : [];
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
  if (!interrupted)
    process.stderr.write(`bench:auth: ${error instanceof BenchError ? error.message : (error.stack ?? error)}\n`);
  code = 1;
} finally {
  await cleanup(options.pgUrl);
}
process.exit(code);
