import { dialect, perDatabase, type Db } from '../database/index.js';
import type { BatchDeltas } from './aggregates.js';

/**
 * On SQLite, the values of `unique` meters that ingestion knows are stored already (`meter_unique_values` per subject,
 * `meter_bucket_values` per hour), so that a group does not send them again. With thousands of customers each sending
 * the same few values, nearly every one is: each `INSERT … ON CONFLICT DO NOTHING` of it was a lookup in the table's
 * index that found it there, about a tenth of SQLite's work on a group (bench/events/README.md).
 *
 * Only what a committed transaction wrote is learnt (`learn`, with the connection still held), and whatever deletes
 * those rows (a reset, a meter's recount) forgets everything in the same transaction (`forget`), so a value known here
 * is in the table. A group built before its transaction, from what was known then, is written as built only if
 * nothing was forgotten meanwhile (`generation`); else it is built again. One daemon holds a SQLite file, so this
 * memory sees every write; on PostgreSQL, shared by several daemons, every value is sent.
 */

/** Values known at most (about 100 bytes each); beyond, everything is forgotten and learnt again. */
const MAX_KNOWN = 200_000;

type Known<K> = Map<string, Map<K, Set<string>>>;

interface State {
  unique: Known<string>;
  bucket: Known<number>;
  size: number;
  /** Moved on by every `forget`: what was filtered before it may name values deleted since. */
  generation: number;
}

const stateOf = perDatabase((): State => ({ unique: new Map(), bucket: new Map(), size: 0, generation: 0 }));

function has<K>(known: Known<K>, [meterId, key, value]: readonly [string, K, string]): boolean {
  return known.get(meterId)?.get(key)?.has(value) === true;
}

function add<K>(known: Known<K>, [meterId, key, value]: readonly [string, K, string]): boolean {
  let ofMeter = known.get(meterId);
  if (!ofMeter) known.set(meterId, (ofMeter = new Map()));
  let values = ofMeter.get(key);
  if (!values) ofMeter.set(key, (values = new Set()));
  if (values.has(value)) return false;
  values.add(value);
  return true;
}

/** The values a group writes, less those known to be stored; null on PostgreSQL (every value is written). */
export function knownValues(db: Db) {
  if (dialect(db) !== 'sqlite') return null;
  const state = stateOf(db);
  return {
    get generation(): number {
      return state.generation;
    },

    /** The deltas with only the values not known to be stored. */
    unknown(deltas: BatchDeltas): BatchDeltas {
      if (state.size === 0) return deltas;
      return {
        ...deltas,
        uniqueValues: deltas.uniqueValues.filter((row) => !has(state.unique, row)),
        bucketValues: deltas.bucketValues.filter((row) => !has(state.bucket, row)),
      };
    },

    /** A transaction that wrote these values committed. */
    learn(values: Pick<BatchDeltas, 'uniqueValues' | 'bucketValues'>): void {
      if (state.size + values.uniqueValues.length + values.bucketValues.length > MAX_KNOWN) {
        // Forgetting without a delete leaves every value known before still stored: no new generation.
        state.unique.clear();
        state.bucket.clear();
        state.size = 0;
      }
      for (const row of values.uniqueValues) if (add(state.unique, row)) state.size += 1;
      for (const row of values.bucketValues) if (add(state.bucket, row)) state.size += 1;
    },
  };
}

/** Stored values are being deleted, in the transaction that deletes them. */
export function forgetKnownValues(db: Db): void {
  if (dialect(db) !== 'sqlite') return;
  const state = stateOf(db);
  state.unique.clear();
  state.bucket.clear();
  state.size = 0;
  state.generation += 1;
}
