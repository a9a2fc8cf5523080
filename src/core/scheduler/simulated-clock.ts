import type { Db } from '../database/index.js';
import { transaction } from '../database/index.js';
import type { Clock } from '../kernel/clock.js';
import { clockRepository } from './clock-repository.js';

/** The invalidation key announced when the simulated time moves, so other daemons read it again. */
export const CLOCK_KEY = 'till:simulated-clock';

/**
 * TILL_CLOCK=simulated: the daemon's time is the row in `simulated_clock`, which only moves forward (through
 * `POST /api/admin/clock`) and outlives restarts. Reads are free: the value is held in memory and read again from the
 * database when another daemon announces a move (the invalidation bus) and on each worker poll, so every daemon on one
 * PostgreSQL sees the same time. It stands still between moves, as Stripe's test clocks do.
 */
export class SimulatedClock implements Clock {
  private current: number;

  private constructor(
    private readonly db: Db,
    start: Date,
  ) {
    this.current = start.getTime();
  }

  /** Reads the stored time, storing `start` (the real time, on a first start) when there is none yet. */
  static async open(db: Db, start: Date): Promise<SimulatedClock> {
    const repo = clockRepository(db);
    await repo.insertIfMissing(start);
    return new SimulatedClock(db, (await repo.read()) ?? start);
  }

  now(): Date {
    return new Date(this.current);
  }

  /** Takes the stored time (another daemon may have moved it); never moves this daemon's time back. */
  async refresh(): Promise<void> {
    const stored = await clockRepository(this.db).read();
    if (stored && stored.getTime() > this.current) this.current = stored.getTime();
  }

  /**
   * Stores `at` as the time, telling other daemons in the same transaction (`announce`), and takes it here. Answers
   * false, changing nothing, when `at` is before the stored time.
   */
  async moveTo(at: Date, announce: (trx: Db) => Promise<void>): Promise<boolean> {
    const moved = await transaction(this.db, async (trx) => {
      if (!(await clockRepository(trx).moveTo(at))) return false;
      await announce(trx);
      return true;
    });
    if (moved && at.getTime() > this.current) this.current = at.getTime();
    return moved;
  }
}
