import { dialect, finishWith, perDatabase, transaction, type Db, type Transaction } from '../database/index.js';
import type { Background } from '../kernel/background.js';
import type { CrashHook } from '../kernel/crash.js';
import type { TotalDelta } from './aggregates.js';
import { lastEventSeq } from './event-seq.js';
import { deferAddTotals, type TimedTotalDelta } from './totals-upsert.js';

/**
 * On SQLite, the running totals of customer meters that ingestion adds are held in memory for a moment and written
 * in bulk, instead of being upserted by every ingestion transaction. With thousands of customers each transaction's
 * upserts landed on most pages of `meter_totals`, and its COMMIT wrote them all again (bench/events/README.md says
 * what this saves). Written every TOTALS_WRITE_MS, a page is written once for many batches; in the background a slice
 * of rows a transaction (writeInSlices), so that ingestion's batches are not held up behind the whole.
 *
 * Nothing reads a stale total: whatever reads or changes `meter_totals` (customer meters, customer state, credits,
 * resets, a meter's recount, an organization's deletion) first writes what is held here (`settleTotals`), holding
 * SQLite's one connection, as ingestion does when it adds: so reads see every ingested event, and a reset zeroes what
 * was counted before it.
 * A daemon that stops without writing them (a crash) counts them again at its next start from the events after the
 * `totals` mark (the last event seq whose totals are written; totals-recount.ts), but for the events a row written by
 * a slice already counts (`held_through_seq`). One daemon holds a SQLite file, so
 * memory is the one place they can be. PostgreSQL, where several daemons share the database, upserts in each
 * ingestion transaction, as before.
 */

/** What a background write needs; `crashAt` stops a test's daemon between two slices. */
interface WriteDeps {
  db: Db;
  background: Background;
  crashAt?: CrashHook;
}

/** How long added totals wait in memory before a write, at most. */
export const TOTALS_WRITE_MS = 5_000;

/** (meter, subject) pairs held at most: beyond, a write starts at once (memory, and the length of one write). */
const MAX_HELD = 50_000;

/**
 * Rows per upsert statement of a write, and per transaction of a write in slices (events/customer-index.ts's
 * MERGE_SLICE says why this many).
 */
const ROWS_PER_STATEMENT = 2_000;

interface Held {
  /**
   * By meter id, then subject: the strings ingestion's deltas already carry (hashed once by aggregateBatch's own maps),
   * where one joined key per delta cost a concatenation and a fresh hash for every one.
   */
  totals: Map<string, Map<string, TimedTotalDelta>>;
  /** (meter, subject) pairs in `totals`. */
  size: number;
  timer: NodeJS.Timeout | null;
  /** A write is started and not finished: no other is started meanwhile. */
  queued: boolean;
  /**
   * Taken by a write in slices (writeInSlices) and not written yet, by meter and subject like `totals`: each pair
   * once, so that the slice that writes it counts its row through the write's seq whole.
   */
  unwritten: Totals;
}

type Totals = Map<string, Map<string, TimedTotalDelta>>;

const heldOf = perDatabase((): Held => ({
  totals: new Map(),
  size: 0,
  timer: null,
  queued: false,
  unwritten: new Map(),
}));

export function holdsTotals(db: Db): boolean {
  return dialect(db) === 'sqlite';
}

function merge(state: Held, delta: TotalDelta, firstAt: number, lastAt: number): void {
  if (addTo(state.totals, delta, firstAt, lastAt)) state.size += 1;
}

/** Adds a delta to its pair's, field by field; true when the pair was not there yet. */
function addTo(totals: Totals, delta: TotalDelta, firstAt: number, lastAt: number): boolean {
  let ofMeter = totals.get(delta.meterId);
  if (!ofMeter) totals.set(delta.meterId, (ofMeter = new Map()));
  const known = ofMeter.get(delta.subject);
  if (!known) {
    ofMeter.set(delta.subject, {
      meterId: delta.meterId,
      subject: delta.subject,
      organizationId: delta.organizationId,
      customerId: delta.customerId,
      externalCustomerId: delta.externalCustomerId,
      events: delta.events,
      valueCount: delta.valueCount,
      valueSum: delta.valueSum,
      valueMin: delta.valueMin,
      valueMax: delta.valueMax,
      firstAt,
      lastAt,
    });
    return true;
  }
  known.events += delta.events;
  known.valueCount += delta.valueCount;
  known.valueSum += delta.valueSum;
  if (delta.valueMin !== null && (known.valueMin === null || delta.valueMin < known.valueMin))
    known.valueMin = delta.valueMin;
  if (delta.valueMax !== null && (known.valueMax === null || delta.valueMax > known.valueMax))
    known.valueMax = delta.valueMax;
  if (firstAt < known.firstAt) known.firstAt = firstAt;
  if (lastAt > known.lastAt) known.lastAt = lastAt;
  return false;
}

/** What is held moved into `unwritten`, each pair once (one row a pair in the statement that writes it). */
function takeHeld(state: Held): void {
  for (const delta of takeFrom(state.totals)) addTo(state.unwritten, delta, delta.firstAt, delta.lastAt);
  state.size = 0;
}

/** Up to `most` deltas taken out of `totals`. */
function takeFrom(totals: Totals, most = Infinity): TimedTotalDelta[] {
  const taken: TimedTotalDelta[] = [];
  for (const [meterId, ofMeter] of totals) {
    for (const [subject, delta] of ofMeter) {
      if (taken.length >= most) return taken;
      taken.push(delta);
      ofMeter.delete(subject);
    }
    totals.delete(meterId);
  }
  return taken;
}

/**
 * Ingestion's totals, once its events are committed and while its transaction still holds the connection (so that
 * no write of the held totals can fall between the two and set the mark past events it does not hold). A write is
 * started within TOTALS_WRITE_MS, in the background.
 */
export function holdTotals(trx: Db, deltas: readonly TotalDelta[], at: number, deps: WriteDeps): void {
  const state = heldOf(trx);
  for (const delta of deltas) merge(state, delta, at, at);
  schedule(state, deps);
}

/** A write at once when too much is held, else within TOTALS_WRITE_MS; nothing while one is started. */
function schedule(state: Held, deps: WriteDeps): void {
  if (state.queued || (state.size === 0 && state.unwritten.size === 0)) return;
  if (state.size >= MAX_HELD) {
    if (state.timer) clearTimeout(state.timer);
    startWrite(state, deps);
  } else if (!state.timer) {
    state.timer = setTimeout(() => startWrite(state, deps), TOTALS_WRITE_MS);
    state.timer.unref();
  }
}

function startWrite(state: Held, deps: WriteDeps): void {
  state.timer = null;
  state.queued = true;
  deps.background.run('meters: write held totals', async () => {
    try {
      await writeInSlices(deps, state);
    } finally {
      state.queued = false;
      // Added after it took what was held, or held again after it failed.
      schedule(state, deps);
    }
  });
}

/**
 * Writes the held totals, before `db` reads or changes `meter_totals`: inside the caller's transaction when `db` is
 * one (it holds the connection), else in a transaction of its own. Null, synchronously, when nothing is held (the
 * caller's reads then go out in the same tick as before); always null on PostgreSQL.
 */
export function settleTotals(db: Db): Promise<void> | null {
  if (!holdsTotals(db)) return null;
  const state = heldOf(db);
  if (state.size === 0 && state.unwritten.size === 0) return null;
  if (db.isTransaction) return writeHeld(db as Transaction, state, false);
  return transaction(db, (trx) => writeHeld(trx, state, true));
}

/**
 * Takes what is held and writes it with the mark moved to the last event, in `trx`, which holds the connection: so
 * everything ingested up to that event is either in what was taken or already written. If the write or the caller's
 * transaction fails, what was taken is held again.
 */
async function writeHeld(trx: Transaction, state: Held, own: boolean): Promise<void> {
  if (state.size === 0 && state.unwritten.size === 0) return;
  // What a write in slices has yet to write goes too, the mark being about to move past it.
  takeHeld(state);
  const taken = takeFrom(state.unwritten);
  if (state.timer) {
    clearTimeout(state.timer);
    state.timer = null;
  }
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    for (const delta of taken) merge(state, delta, delta.firstAt, delta.lastAt);
  };
  trx.executionPromise.catch(restore);
  try {
    const writes = [];
    for (let start = 0; start < taken.length; start += ROWS_PER_STATEMENT)
      // Held rows carry their own times: `at` is never used for them.
      writes.push(deferAddTotals(trx, taken.slice(start, start + ROWS_PER_STATEMENT), Date.now()));
    writes.push(
      trx('event_index_marks')
        .where('name', 'totals')
        .update({ seq: trx('events').select(trx.raw('coalesce(max(seq), 0)')) }),
    );
    // In a transaction of its own, they are its last statements: sent with its COMMIT in one call.
    if (own) await finishWith(trx, ...writes);
    else for (const write of writes) await write;
  } catch (error) {
    restore();
    throw error;
  }
}

/**
 * The background write: what is held taken (in a transaction, so that nothing ingested falls between it and the last
 * event's seq read with it), then written ROWS_PER_STATEMENT rows a transaction, each row stamped with that seq
 * (`held_through_seq`), and the `totals` mark moved to it once the last slice is in. Ingestion's batches run between
 * the slices. A stop between two slices leaves rows that count past the mark; the recount at the next start skips,
 * for each, the events it already counts (totals-recount.ts). A reader's settleTotals meanwhile writes what is left
 * itself, with the mark; a slice that fails puts its rows back for the next write.
 */
async function writeInSlices({ db, crashAt }: WriteDeps, state: Held): Promise<void> {
  const through = await transaction(db, async (trx) => {
    // Rows a failed slice put back are written again now, counted through the newer seq with what is taken.
    if (state.size === 0 && state.unwritten.size === 0) return null;
    const seq = await lastEventSeq(trx);
    takeHeld(state);
    return seq;
  });
  if (through === null) return;
  for (;;) {
    const wrote = await transaction(db, async (trx) => {
      // Taken once the connection is held, so a settleTotals can never run while a slice is neither here nor written.
      const slice = takeFrom(state.unwritten, ROWS_PER_STATEMENT);
      if (slice.length === 0) return false;
      trx.executionPromise.catch(() => {
        for (const delta of slice) addTo(state.unwritten, delta, delta.firstAt, delta.lastAt);
      });
      await finishWith(trx, deferAddTotals(trx, slice, Date.now(), through));
      return true;
    });
    if (!wrote) break;
    crashAt?.('totals.sliced');
  }
  // Never back: a settleTotals in between may have moved it further.
  await transaction(db, (trx) =>
    finishWith(
      trx,
      trx('event_index_marks').where('name', 'totals').where('seq', '<', through).update({ seq: through }),
    ),
  );
}
