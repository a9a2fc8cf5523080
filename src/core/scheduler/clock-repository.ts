import type { Db } from '../database/index.js';
import { toDate } from '../database/index.js';

/** The one row of `simulated_clock`: the shared time of every daemon on the database under TILL_CLOCK=simulated. */
export function clockRepository(db: Db) {
  return {
    async read(): Promise<Date | null> {
      const row = await db('simulated_clock').where({ id: 1 }).first();
      return row ? toDate(row.now) : null;
    },
    /** The first start under the simulated clock: time begins at the real time. */
    async insertIfMissing(now: Date): Promise<void> {
      await db('simulated_clock').insert({ id: 1, now }).onConflict('id').ignore();
    },
    /** Moves the stored time to `at` unless it is already later; answers whether it did (or it was there already). */
    async moveTo(at: Date): Promise<boolean> {
      const changed = await db('simulated_clock').where({ id: 1 }).where('now', '<=', at).update({ now: at });
      return Number(changed) === 1;
    },
  };
}
