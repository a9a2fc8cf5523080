import { dialect, markStoredChange, perDatabase, storedChangeMark, type Db } from '../database/index.js';
import type { BatchDeltas } from './aggregates.js';

/**
 * The values of `unique` meters that ingestion knows are stored already (`meter_unique_values` per subject,
 * `meter_bucket_values` per hour), so that a group does not send them again. With thousands of customers each sending
 * the same few values, nearly every one is: each `INSERT … ON CONFLICT DO NOTHING` of it was a lookup in the table's
 * index that found it there, about a tenth of SQLite's work on a group and a fourteenth of PostgreSQL's
 * (bench/events/README.md).
 *
 * Only what a committed transaction wrote is learnt (`learn`), and whatever deletes those rows (a reset, a meter's
 * recount) forgets in the same transaction (`forgetKnownValues`), so a value known here is in the table. On SQLite,
 * whose file this daemon holds, what is known is one set in memory, and forgetting moves its generation on: a group
 * built before its transaction, from what was known then, is written as built only if nothing was forgotten
 * meanwhile, else built again. On PostgreSQL, shared by several daemons, the generation is the organization's stored
 * change mark for these tables (database/change-marks.ts), which forgetting moves: a group's transaction reads it after
 * taking the organization's meters lock in shared mode (`knownValuesOf`), and a deleter holds that lock exclusively, so
 * no value a group leaves out is deleted before the group commits.
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

/** What a group filters its values through, and teaches once it has committed. */
export interface KnownValues {
  readonly generation: number;
  /** The deltas with only the values not known to be stored. */
  unknown(deltas: BatchDeltas): BatchDeltas;
  /** A transaction that wrote these values committed. */
  learn(values: Pick<BatchDeltas, 'uniqueValues' | 'bucketValues'>): void;
}

/**
 * A handle on `state`, valid while `current()` says so; `room(n)` makes room for n more values (false: learn none).
 * `learnt(n)` hears how many were new.
 */
function over(
  state: State,
  generation: () => number,
  current: () => boolean,
  room: (n: number) => boolean,
  learnt: (n: number) => void = () => undefined,
): KnownValues {
  return {
    get generation(): number {
      return generation();
    },
    unknown(deltas) {
      if (state.size === 0 || !current()) return deltas;
      return {
        ...deltas,
        uniqueValues: deltas.uniqueValues.filter((row) => !has(state.unique, row)),
        bucketValues: deltas.bucketValues.filter((row) => !has(state.bucket, row)),
      };
    },
    learn(values) {
      if (!current() || !room(values.uniqueValues.length + values.bucketValues.length)) return;
      const before = state.size;
      for (const row of values.uniqueValues) if (add(state.unique, row)) state.size += 1;
      for (const row of values.bucketValues) if (add(state.bucket, row)) state.size += 1;
      learnt(state.size - before);
    },
  };
}

/** SQLite: what this daemon knows, under its generation now; null on PostgreSQL (see knownValuesOf). */
export function knownValues(db: Db): KnownValues | null {
  if (dialect(db) !== 'sqlite') return null;
  const state = stateOf(db);
  const taken = state.generation;
  return over(
    state,
    () => state.generation,
    // Learnt only if nothing was forgotten since this was taken: a delete may have followed the group's COMMIT.
    () => state.generation === taken,
    (n) => {
      if (state.size + n > MAX_KNOWN) {
        // Forgetting without a delete leaves every value known before still stored: no new generation.
        state.unique.clear();
        state.bucket.clear();
        state.size = 0;
      }
      return true;
    },
  );
}

const MARK = 'meter_values';

/** PostgreSQL: what is known per organization, and how many values in all (MAX_KNOWN at most). */
const organizationsOf = perDatabase(() => ({ states: new Map<string, State>(), size: 0 }));

/**
 * PostgreSQL: what this daemon knows of an organization's values, under the stored mark read now by `trx` (the group's
 * transaction, holding the meters lock in shared mode). A group that read an older mark than what is known (another
 * group read it after a forget) neither filters nor teaches.
 */
export async function knownValuesOf(trx: Db, organizationId: string): Promise<KnownValues> {
  const mark = await storedChangeMark(trx, MARK, organizationId);
  const organizations = organizationsOf(trx);
  let state = organizations.states.get(organizationId);
  if (!state || state.generation < mark) {
    if (state) organizations.size -= state.size;
    state = { unique: new Map(), bucket: new Map(), size: 0, generation: mark };
    organizations.states.set(organizationId, state);
  }
  const known = state;
  return over(
    known,
    () => mark,
    () => known.generation === mark && organizations.states.get(organizationId) === known,
    (n) => {
      if (organizations.size + n <= MAX_KNOWN) return true;
      // Forgetting without a delete leaves every value known before still stored; this group's are learnt next time.
      organizations.states.clear();
      organizations.size = 0;
      return false;
    },
    (n) => (organizations.size += n),
  );
}

/** Stored values of the organization's meters are being deleted, in the transaction that deletes them. */
export async function forgetKnownValues(db: Db, organizationId: string): Promise<void> {
  if (dialect(db) !== 'sqlite') return markStoredChange(db, MARK, organizationId);
  const state = stateOf(db);
  state.unique.clear();
  state.bucket.clear();
  state.size = 0;
  state.generation += 1;
}
