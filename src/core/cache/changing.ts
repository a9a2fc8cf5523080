import type { Db, Transaction } from '../database/index.js';
import { transaction } from '../database/index.js';
import type { InvalidationBus } from './invalidation.js';
import { isReadCacheKey, markChanging } from './read-cache.js';

/** Names invalidation keys for the change being made; may be called at any point of the work, more than once. */
export type Announce = (keys: string[]) => void;

export interface ChangingOptions {
  /** Keys known before the work starts (sessions, API keys); the work may announce more. */
  keys?: string[];
  /** Run inside this transaction (the caller's) instead of one of its own. */
  within?: Db;
}

export type Changing = <T>(
  work: (trx: Transaction, announce: Announce) => Promise<T>,
  options?: ChangingOptions,
) => Promise<T>;

/**
 * Runs a change that cached rows depend on, in a transaction (`transaction`: the caller's when `within` is one), and
 * tells every cache about it: the announced keys go out with pg_notify inside the transaction (so other daemons hear
 * of it exactly when it commits) and are forgotten here once it has. Inside a caller's transaction they are forgotten
 * at once and again at its commit, so that a read which slipped in between (and saw the old rows) cannot leave them
 * cached. Announce before reading anything cached in the transaction: from then on it reads the database, never the
 * read cache.
 */
export function createChanging(db: Db, bus: InvalidationBus): Changing {
  return async function changing<T>(
    work: (trx: Transaction, announce: Announce) => Promise<T>,
    options: ChangingOptions = {},
  ): Promise<T> {
    const keys = new Set<string>();
    const run = async (trx: Transaction): Promise<T> => {
      const announce: Announce = (more) => {
        if (more.some(isReadCacheKey)) markChanging(trx);
        for (const key of more) keys.add(key);
      };
      if (options.keys) announce(options.keys);
      const result = await work(trx, announce);
      await bus.announce(trx, [...keys]);
      return result;
    };
    const forget = () => bus.forgetHere([...keys]);
    const within = options.within ?? db;
    if (within.isTransaction) {
      const value = await run(within as Transaction);
      forget();
      (within as Transaction).executionPromise.then(forget, () => undefined);
      return value;
    }
    const value = await transaction(within, run);
    forget();
    return value;
  };
}
