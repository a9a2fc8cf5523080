// Options of the auth benchmark (bench/auth/run.js): command line and BENCH_* environment, --help text.
import { resolve } from 'node:path';

export const SCENARIOS = ['till', 'mixed', 'better-auth', 'koa'];

export const HELP = `Usage: node bench/auth/run.js [options]        (npm run bench:auth -- [options])

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

export function parseOptions(argv, env) {
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
    if (match[1] === 'till-env')
      tillEnvFlags.push(value); // may be given several times
    else raw[match[1]] = value;
  }
  const number = (name, fallback, min) => {
    const value = raw[name];
    if (value === undefined || value === '') return fallback;
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed < min) usage(`--${name} must be a number ≥ ${min} (got "${value}")`);
    return parsed;
  };
  const only = raw.only
    ? raw.only
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : SCENARIOS;
  for (const name of only)
    if (!SCENARIOS.includes(name)) usage(`--only: unknown scenario "${name}" (${SCENARIOS.join(', ')})`);
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

export function parseTillEnv(value) {
  const env = {};
  for (const pair of (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const eq = pair.indexOf('=');
    if (eq <= 0 || !pair.startsWith('TILL_')) usage(`--till-env takes TILL_NAME=value pairs (got "${pair}")`);
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return env;
}

export function usage(message) {
  process.stderr.write(`bench:auth: ${message}\n\n${HELP}`);
  process.exit(2);
}
