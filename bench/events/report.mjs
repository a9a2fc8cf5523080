// What bench/events prints: each database's figures and issue 19's goals, read two ways.
//
// The issue sets its throughput goals on a machine where the bare Koa parse of these batches ran near 1,000,000
// events/s: 100,000 events/s on SQLite and 50,000 on PostgreSQL are a tenth and a twentieth of that. The machines
// this runs on change speed by a factor of three from one session to the next, so each goal is read as the issue
// states it (events a second) and as a ratio to the bare parse of the same run. A time (the p99 per batch) scales
// the other way: it is read as measured and as it would be on a machine whose bare parse runs at the reference rate.
// RSS and the meter read's growth do not depend on the machine's speed and are read as they are.

/** The bare parse's rate on the machine the goals were set on (issue 19). */
export const KOA_REFERENCE = 1_000_000;
export const GOALS = { sqlite: 100_000, postgres: 50_000 };
export const P99_GOAL_MS = 250;
export const RSS_GOAL_MB = 300;
export const READ_GROWTH_GOAL = 1.5;
/** The history at which the issue sets its RSS and read goals. */
export const GOAL_EVENTS = 5_000_000;

const fmt = (n, digits = 0) => (n === null || n === undefined || Number.isNaN(n) ? '-' : n.toFixed(digits));
const verdict = (met) => (met ? 'met' : 'missed');

/**
 * The goals for one database's result, given the run's bare Koa rate: each with the figure, the goal and whether it
 * is met; `ratio` and `scaledP99Ms` are the machine-independent readings.
 */
export function goalsOf(db, result, koaRate, events) {
  const ratio = result.eventsPerSecond / koaRate;
  const ratioGoal = GOALS[db] / KOA_REFERENCE;
  const scaledP99Ms = (result.p99 * koaRate) / KOA_REFERENCE;
  const readGrowth = result.readAtEndMs / result.readAtStartMs;
  const atGoalScale = events >= GOAL_EVENTS;
  return {
    eventsPerSecond: { value: result.eventsPerSecond, goal: GOALS[db], met: result.eventsPerSecond >= GOALS[db] },
    ratio: { value: ratio, goal: ratioGoal, met: ratio >= ratioGoal },
    p99Ms: { value: result.p99, goal: P99_GOAL_MS, met: result.p99 < P99_GOAL_MS },
    scaledP99Ms: { value: scaledP99Ms, goal: P99_GOAL_MS, met: scaledP99Ms < P99_GOAL_MS },
    // A run shorter than GOAL_EVENTS reads the RSS and read goals all the same, marked.
    rssMb: { value: result.rssMb, goal: RSS_GOAL_MB, met: result.rssMb < RSS_GOAL_MB, atGoalScale },
    readGrowth: {
      value: readGrowth,
      goal: READ_GROWTH_GOAL,
      met: readGrowth <= READ_GROWTH_GOAL,
      atGoalScale,
    },
  };
}

/** The report's lines: the bare parse, then each database's figures and its goals. */
export function reportLines(flags, results, batch) {
  const { koa } = results;
  const runs = koa.runs.map((run) => fmt(run.eventsPerSecond)).join(' and ');
  const lines = [
    `bare Koa (parse only)   ${fmt(koa.eventsPerSecond)} events/s (the faster of ${runs}, before and after)   p50 ${fmt(koa.p50, 1)} ms   p99 ${fmt(koa.p99, 1)} ms`,
  ];
  for (const db of flags.only) {
    const r = results[db];
    const goals = r.goals;
    const scale = goals.rssMb.atGoalScale
      ? ''
      : ` (the goal is at ${GOAL_EVENTS} events; this run has ${flags.events})`;
    lines.push(
      `Till on ${db.padEnd(8)}        ${fmt(r.eventsPerSecond)} events/s   p50 ${fmt(r.p50, 1)} ms   p99 ${fmt(r.p99, 1)} ms   ${fmt(r.daemonCpuMicrosPerEvent, 1)} µs daemon CPU/event${r.databaseCpuMicrosPerEvent === null ? '' : ` + ${fmt(r.databaseCpuMicrosPerEvent, 1)} µs database`}${r.walBytesPerEvent === null ? '' : `, ${fmt(r.walBytesPerEvent)} B of WAL an event, ${r.checkpoints} checkpoints`} (main thread busy ${fmt(r.mainThreadBusy * 100)} % of the load)   RSS ${fmt(r.rssMb)} MB (peak ${fmt(r.peakRssMb)}, ${fmt(r.settledRssMb)} after 15 s idle)   customer meter read ${fmt(r.readAtStartMs, 2)} ms at 1,000 events, ${fmt(r.readAtEndMs, 2)} ms at ${flags.events + batch} (${fmt(r.readAtRestMs, 2)} ms after 15 s idle)` +
        (r.failures ? `   FAILURES ${r.failures}: ${r.lastFailure}` : ''),
      `  goals on ${db}: ${fmt(goals.eventsPerSecond.value)} events/s against ${goals.eventsPerSecond.goal}: ${verdict(goals.eventsPerSecond.met)}; ` +
        `as a ratio to Koa ${fmt(goals.ratio.value, 3)} against ${fmt(goals.ratio.goal, 3)}: ${verdict(goals.ratio.met)}` +
        ` | p99 ${fmt(goals.p99Ms.value)} ms against ${P99_GOAL_MS}: ${verdict(goals.p99Ms.met)}; at Koa's reference rate ${fmt(goals.scaledP99Ms.value)} ms: ${verdict(goals.scaledP99Ms.met)}` +
        ` | RSS ${fmt(goals.rssMb.value)} MB against ${RSS_GOAL_MB}: ${verdict(goals.rssMb.met)}` +
        ` | meter read ${fmt(goals.readGrowth.value, 2)}× against ${READ_GROWTH_GOAL}×: ${verdict(goals.readGrowth.met)}${scale}`,
    );
  }
  return lines;
}
