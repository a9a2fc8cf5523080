import type { Db } from '../database/index.js';
import { DomainError } from '../kernel/errors.js';
import type { SimulatedClock } from './simulated-clock.js';

/** One kind of timed work the simulated clock must run as it passes (scheduled jobs, webhook retries, mail). */
export interface DueWork {
  /** Does everything due at the clock's current time, and waits for it to be done. */
  runDue(): Promise<void>;
  /** The earliest time strictly after `after` at which more of this work falls due. */
  nextDueAfter(after: Date): Promise<Date | null>;
}

export interface ClockView {
  now: string;
  simulated: true;
}

/**
 * Moving the simulated clock (`POST /api/admin/clock`): the time steps to each moment something falls due, in order,
 * and that work is done before the next step, so a year's renewals, retries and expiries happen as they would have,
 * each at its own time. Answers once everything due up to the target is done. One move at a time in this daemon.
 */
export function createClockControl(deps: {
  clock: SimulatedClock;
  work: readonly DueWork[];
  announce: (trx: Db) => Promise<void>;
}) {
  const { clock, work } = deps;
  let queue: Promise<unknown> = Promise.resolve();

  async function stepTo(at: Date): Promise<void> {
    if (at.getTime() > clock.now().getTime() && !(await clock.moveTo(at, deps.announce))) throw backwards(at, clock);
  }

  async function runDue(): Promise<void> {
    for (const source of work) await source.runDue();
  }

  async function nextDue(): Promise<Date | null> {
    const now = clock.now();
    let next: Date | null = null;
    for (const source of work) {
      const at = await source.nextDueAfter(now);
      if (at && (!next || at < next)) next = at;
    }
    return next;
  }

  async function advanceTo(target: Date): Promise<Date> {
    await clock.refresh();
    if (target < clock.now()) throw backwards(target, clock);
    // Whatever was due already (the clock stands still between moves, so little is) goes first.
    await runDue();
    for (let next = await nextDue(); next && next <= target; next = await nextDue()) {
      await stepTo(next);
      await runDue();
    }
    await stepTo(target);
    await runDue();
    return clock.now();
  }

  return {
    view(): ClockView {
      return { now: clock.now().toISOString(), simulated: true };
    },
    /** Moves the time to `target` (not before now), doing all work due on the way. */
    advanceTo(target: Date): Promise<Date> {
      const result = queue.then(() => advanceTo(target));
      queue = result.catch(() => undefined);
      return result;
    },
  };
}

export type ClockControl = ReturnType<typeof createClockControl>;

function backwards(target: Date, clock: SimulatedClock): DomainError {
  return new DomainError(
    409,
    'CLOCK_CANNOT_GO_BACK',
    `The simulated clock only moves forward: ${target.toISOString()} is before ${clock.now().toISOString()}`,
  );
}
