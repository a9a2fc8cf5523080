import type { Knex } from 'knex';
import type { Db } from '../database/index.js';
import { transaction } from '../database/index.js';
import type { InvalidationBus } from './invalidation.js';
import { markChanging } from './read-cache.js';

/** Names invalidation keys for the change being made; may be called at any point of the work, more than once. */
export type Announce = (keys: string[]) => void;

export type Changing = <T>(work: (trx: Knex.Transaction, announce: Announce) => Promise<T>) => Promise<T>;

/**
 * Runs a change in a transaction and tells every cache about it: the announced keys go out with pg_notify inside the
 * transaction (so other daemons hear of it exactly when it commits) and are forgotten here once it has. Announce
 * before reading anything cached in the transaction: from then on it reads the database, never a cache.
 */
export function createChanging(db: Db, bus: InvalidationBus): Changing {
  return async function changing<T>(work: (trx: Knex.Transaction, announce: Announce) => Promise<T>): Promise<T> {
    const keys = new Set<string>();
    const value = await transaction(db, async (trx) => {
      const result = await work(trx, (more) => {
        markChanging(trx);
        for (const key of more) keys.add(key);
      });
      await bus.announce(trx, [...keys]);
      return result;
    });
    bus.forgetHere([...keys]);
    return value;
  };
}
