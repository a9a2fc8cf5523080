import type { Db } from '../database/index.js';
import { meterAggregatesRepository } from './aggregates-repository.js';
import { aggregateBatch, compileMeter, subjectOf, subjectsOfCustomer } from './aggregates.js';
import type { Meter } from './repository.js';
import { meterResetsRepository, type MeterCustomer } from './resets-repository.js';

/**
 * Before a customer's meters are billed (or otherwise reset), counts into the customer's rows the events their
 * backfill has not reached yet: a reset covers every event up to the newest (`reset_seq`) and the backfill skips what
 * a reset covered (backfill.ts), so whatever it had not counted by the reset would never be billed. Only this
 * customer's events after the cursor are read, so a bill costs what that customer sent, not what the meter has left.
 *
 * The figures are written into the rows, not only added in memory: `unique` then counts distinct values over what
 * was stored and what is added, and a row of events sent by external id that the backfill would have created exists
 * to take the reset's `reset_seq` (else the backfill would create it later and bill those events again). The quantity
 * series (buckets) are left to the backfill, which counts them over every event whatever the resets.
 *
 * The caller holds the organization's meter lock exclusively, as a backfill step does (on PostgreSQL the step waits,
 * then reads the cursor and the customer's `reset_seq` after this transaction), read `meters` under it, and resets
 * every one of them for this customer in the same transaction: without the reset the backfill would count these
 * events again. Costs nothing (no query) when none of the meters is backfilling; else two reads, and the writes.
 */
export async function countBackfillBeforeReset(
  trx: Db,
  customer: MeterCustomer,
  meters: readonly Meter[],
  at: Date,
): Promise<void> {
  const pending = meters.filter((meter) => meter.backfillTarget !== null);
  if (pending.length === 0) return;
  const subjects = subjectsOfCustomer(customer);
  const resetSeqs = await meterResetsRepository(trx).resetSeqsOf(
    pending.map((meter) => meter.id),
    subjects,
  );
  // A customer billed before needs only the events after their last reset (a meter changed after it counts again).
  const from = (meter: Meter) =>
    Math.max(
      meter.backfillCursor,
      Math.min(...subjects.map((subject) => resetSeqs.get(`${meter.id}|${subject}`) ?? 0)),
    );
  const after = Math.min(...pending.map(from));
  const through = Math.max(...pending.map((meter) => meter.backfillTarget!));
  if (after >= through) return;
  const aggregates = meterAggregatesRepository(trx);
  const rows = await aggregates.eventsOfCustomerBetween(customer, after, through);
  for (const meter of pending) {
    // The backfill's own rule for a step (backfill.ts): its range, and after the subject's last reset.
    const counted = rows.filter(
      (row) =>
        row.seq > meter.backfillCursor &&
        row.seq <= meter.backfillTarget! &&
        row.seq > (resetSeqs.get(`${meter.id}|${subjectOf(row.event)}`) ?? 0),
    );
    if (counted.length === 0) continue;
    const { totals, uniqueValues } = aggregateBatch(
      [compileMeter(meter)],
      counted.map((row) => row.event),
    );
    for (const statement of aggregates.deferAdd({ totals, uniqueValues, buckets: [], bucketValues: [] }, at))
      await statement;
  }
}
