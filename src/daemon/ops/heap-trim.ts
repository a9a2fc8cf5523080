import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Gives back to the system the heap a burst of work left behind. Under load (a million events ingested, a storm of
 * renewals) V8 grows its old space to hold the garbage between major collections, and afterwards keeps it: Node
 * sends V8 no idle notifications, so its memory reducer never runs, and a daemon that peaked at 430 MB sat at 340 MB
 * for good with about 100 MB of it live (bench/events/README.md). Once the event loop has been nearly idle for a
 * while after a busy spell and the heap is large, a few full collections (one per tick) shrink it to what is live.
 * They cost tens of milliseconds each, and the requests just after run slower for a few seconds while V8 rebuilds
 * what a full collection dropped (bench/events/README.md): a quiet daemon can spare both, and a busy one is never
 * collected here.
 */
export const HEAP_TRIM = {
  /** How often the event loop's use and the heap are looked at. */
  intervalMs: 2_000,
  /** The share of the last interval the event loop may have been busy for it to count as idle. */
  idleBelow: 0.05,
  /** A heap committed below this is left alone: about what a daemon holds after start-up and some use. */
  floorBytes: 128 * 1024 * 1024,
  /** Collections after a busy spell: V8 gives back freed pages over two or three. */
  collectionsPerIdleSpell: 3,
  /** A collection that gave back less than this is the last of its idle spell. */
  minGainBytes: 8 * 1024 * 1024,
} as const;

export interface HeapTrimProbe {
  /** The event loop's busy share since the last call (0–1). */
  busy(): number;
  /** The bytes V8 holds for its heap. */
  heap(): { committed: number };
  /** A full, compacting collection. */
  collect(): void;
}

/**
 * The decision, apart from the process: one tick answers whether it collected. What the heap reports as used still
 * counts the garbage no collection has reached yet, so the committed size alone says whether to try, and what the
 * last collection gave back says whether to go on.
 */
export function createHeapTrimmer(probe: HeapTrimProbe) {
  let collections = 0;
  let committedBefore = 0;
  return {
    tick(): boolean {
      if (probe.busy() >= HEAP_TRIM.idleBelow) {
        // A new busy spell makes new garbage: the next idle spell may collect again.
        collections = 0;
        return false;
      }
      if (collections >= HEAP_TRIM.collectionsPerIdleSpell) return false;
      const { committed } = probe.heap();
      if (committed < HEAP_TRIM.floorBytes) return false;
      if (collections > 0 && committedBefore - committed < HEAP_TRIM.minGainBytes) {
        collections = HEAP_TRIM.collectionsPerIdleSpell;
        return false;
      }
      committedBefore = committed;
      probe.collect();
      collections += 1;
      return true;
    },
  };
}

/**
 * How far V8 lets the old space grow past what its last full collection kept, in percent. Left to itself V8 picks a
 * factor of up to four, and the faster a program allocates the larger it picks: ingesting events (megabytes of
 * statement text a group) took a daemon holding about 100 MB live past 440 MB. Doubling, fixed, kept it under 300 MB
 * at a rate the benchmarks could not tell from the default's (bench/events/README.md). A heap whose live part grows
 * still grows: this sets how much garbage may gather between collections, not a ceiling.
 */
export const HEAP_GROWING_PERCENT = 100;

/**
 * Sets the growth once per process, at start. An operator who started node with their own --heap-growing-percent
 * keeps it (answers false).
 */
export function limitHeapGrowth(execArgv: readonly string[] = process.execArgv): boolean {
  if (execArgv.some((arg) => /^--heap[-_]growing[-_]percent(=|$)/.test(arg))) return false;
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}

let collector: (() => void) | null = null;

/**
 * V8's `gc`, which Node exposes only when started with --expose-gc. Setting the flag at run time makes it available
 * to contexts created afterwards (Jest finds leaks the same way), so the daemon needs no flag on its command line.
 */
export function exposedGc(): () => void {
  if (collector) return collector;
  const existing = (globalThis as { gc?: () => void }).gc;
  if (typeof existing === 'function') collector = existing;
  else {
    v8.setFlagsFromString('--expose-gc');
    collector = runInNewContext('gc') as () => void;
  }
  return collector;
}

function processProbe(): HeapTrimProbe {
  const collect = exposedGc();
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  return {
    busy() {
      const now = performance.eventLoopUtilization();
      const spell = performance.eventLoopUtilization(now, last);
      last = now;
      return spell.utilization;
    },
    heap() {
      return { committed: v8.getHeapStatistics().total_heap_size };
    },
    collect,
  };
}

// One trimmer per process, however many daemons it runs (the API tests start several).
let users = 0;
let timer: NodeJS.Timeout | null = null;

/**
 * Starts the process's trimmer (or joins it), with the heap's growth limited; the returned stop leaves it to the other
 * daemons, if any.
 */
export function startHeapTrimmer(): { stop(): void } {
  users += 1;
  if (!timer) {
    limitHeapGrowth();
    const trimmer = createHeapTrimmer(processProbe());
    timer = setInterval(() => trimmer.tick(), HEAP_TRIM.intervalMs);
    timer.unref();
  }
  let stopped = false;
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      users -= 1;
      if (users === 0 && timer) {
        clearInterval(timer);
        timer = null;
      }
    },
  };
}
