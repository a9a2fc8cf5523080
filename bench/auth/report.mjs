// The auth benchmark's report (bench/auth/run.js): the results table, the goals and whether they were met, and the
// check that too many requests did not fail. fmt, pad, row and median serve bench/api-key/run.js too.
import { cpus } from 'node:os';
import { log } from './harness.mjs';

const GOALS = {
  tillOverBetterAuth: 10, // Till get-session req/s ≥ 10 × Better Auth's
  tillOverKoa: 0.35, // Till get-session req/s ≥ 35 % of bare Koa's
  mixedP99Ms: 25, // Till get-session p99 while sign-ins run flat out < 25 ms
};

export const fmt = (value, digits = 1) =>
  value === null || value === undefined || Number.isNaN(value) ? '-' : value.toFixed(digits);
export const pad = (text, width, right = false) => (right ? String(text).padStart(width) : String(text).padEnd(width));

/** One table line: the first cell left-aligned, the others right-aligned, each in its width. */
export const row = (cells, widths, separator = ' ') =>
  cells.map((cell, i) => pad(cell, widths[i], i > 0)).join(separator);

/** The median result of a list of rounds by `score` (the lower one of the middle two); undefined for none. */
export const median = (list, score) =>
  list.length ? [...list].sort((a, b) => score(a) - score(b))[Math.floor((list.length - 1) / 2)] : undefined;

function table(rows) {
  const header = [
    'scenario',
    'req/s',
    'p50 ms',
    'p90 ms',
    'p99 ms',
    'max ms',
    'errors',
    'server CPU',
    'CPU us/req',
    'loader CPU',
    'machine busy',
  ];
  const widths = [46, 9, 8, 8, 8, 8, 7, 11, 11, 11, 13];
  const line = (cells) => row(cells, widths);
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
    failures.push(
      `${name}: ${result.errors} of ${total} requests failed (${JSON.stringify(result.badStatuses)}): ${result.badSamples.join(' | ')}`,
    );
  } else if (result.errors > 0) {
    log(`warning: ${name}: ${result.errors} of ${total} requests failed: ${result.badSamples.join(' | ')}`);
  }
}

/** Every failed check of every round: failed requests above 1 % (a warning below), or no request at all. */
export function failuresOf(options, rounds) {
  const failures = [];
  const labels = {
    till: 'till get-session',
    mixed: 'till get-session (mixed)',
    mixedSignIn: 'till sign-in (mixed)',
    betterAuth: 'better-auth get-session',
    koa: 'bare koa',
  };
  for (const [key, label] of Object.entries(labels)) {
    rounds[key].forEach((result, i) =>
      checkErrors(options.rounds > 1 ? `${label}, round ${i + 1}` : label, result, failures),
    );
  }
  return failures;
}

/** The ratios between the systems and the goals they are measured against. */
export function assessGoals(results) {
  const ratio = (a, b) => (a && b && b.rps > 0 ? a.rps / b.rps : null);
  const ratios = {
    tillOverBetterAuth: ratio(results.till, results.betterAuth),
    tillOverKoa: ratio(results.till, results.koa),
  };
  const mixedP99 = results.mixed?.latencyMs.p99 ?? null;
  const goals = {
    tillOverBetterAuth: {
      goal: `>= ${GOALS.tillOverBetterAuth}x`,
      value: ratios.tillOverBetterAuth,
      met: ratios.tillOverBetterAuth === null ? null : ratios.tillOverBetterAuth >= GOALS.tillOverBetterAuth,
    },
    tillOverKoa: {
      goal: `>= ${GOALS.tillOverKoa * 100}%`,
      value: ratios.tillOverKoa,
      met: ratios.tillOverKoa === null ? null : ratios.tillOverKoa >= GOALS.tillOverKoa,
    },
    mixedGetSessionP99Ms: {
      goal: `< ${GOALS.mixedP99Ms} ms`,
      value: mixedP99,
      met: mixedP99 === null ? null : mixedP99 < GOALS.mixedP99Ms,
    },
  };
  return { ratios, mixedP99, goals };
}

/** The human-readable report, as lines: configuration, the table, memory, goals and failures. */
export function summaryLines({
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
}) {
  const paced = options.mixedRate > 0 ? `, paced at ${options.mixedRate} req/s` : '';
  const out = [];
  out.push('');
  out.push(
    `Auth benchmark: ${options.connections} connections, ${options.warmup} s warm-up + ${options.duration} s measured` +
      `${options.rounds > 1 ? `, median of ${options.rounds} rounds` : ''}; ` +
      `Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? '?'}), PostgreSQL ${pgVersion}`,
  );
  const tillEnvText = Object.entries(options.tillEnv)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  out.push(
    `Till launched via ${tillLaunch === 'cli' ? 'bin/till.js daemon run' : tillLaunch === 'module' ? 'bench/auth/till-server.mjs (startDaemon)' : '-'}; rate limits off; ` +
      (tillEnvText ? `NOT the default configuration: ${tillEnvText}` : 'bcrypt cost 10, default hash workers'),
  );
  if (machineIdleBusy !== null) {
    out.push(
      `Machine ${fmt(machineIdleBusy, 0)} % busy in the second before the run${machineIdleBusy > 15 ? ' -- something else is running; figures will be noisy' : ''}`,
    );
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
  if (memory.tillIdle)
    memoryParts.push(
      `Till idle ${fmt(memory.tillIdle.rssMb)} (after load ${fmt(memory.tillAfterLoad?.rssMb)}, peak ${fmt(memory.tillAfterLoad?.peakRssMb)})`,
    );
  if (memory.betterAuthIdle)
    memoryParts.push(
      `Better Auth idle ${fmt(memory.betterAuthIdle.rssMb)} (peak ${fmt(memory.betterAuthAfterLoad?.peakRssMb)})`,
    );
  if (memory.koaIdle) memoryParts.push(`bare Koa idle ${fmt(memory.koaIdle.rssMb)}`);
  if (memoryParts.length) out.push(`Memory (RSS, MB): ${memoryParts.join('; ')}`);
  out.push('');
  out.push('Goals:');
  out.push(
    goalLine(
      'Till / Better Auth, get-session req/s',
      ratios.tillOverBetterAuth === null ? '-' : `${fmt(ratios.tillOverBetterAuth, 1)}x`,
      goals.tillOverBetterAuth.goal,
      goals.tillOverBetterAuth.met,
    ),
  );
  out.push(
    goalLine(
      'Till / bare Koa, req/s',
      ratios.tillOverKoa === null ? '-' : `${fmt(ratios.tillOverKoa * 100, 0)} %`,
      goals.tillOverKoa.goal,
      goals.tillOverKoa.met,
    ),
  );
  out.push(
    goalLine(
      'Till get-session p99 while sign-ins run flat out',
      mixedP99 === null ? '-' : `${fmt(mixedP99, 1)} ms`,
      goals.mixedGetSessionP99Ms.goal,
      goals.mixedGetSessionP99Ms.met,
    ),
  );
  out.push(
    goalLine('Till idle RSS (informational)', memory.tillIdle ? `${fmt(memory.tillIdle.rssMb)} MB` : '-', '', null),
  );
  if (failures.length) {
    out.push('');
    out.push('FAILED:');
    for (const failure of failures) out.push(`  ${failure}`);
  }
  return out;
}
