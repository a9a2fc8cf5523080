import { transaction, type Db } from '../database/index.js';
import { meterAggregatesRepository } from './aggregates-repository.js';
import { lastEventSeq } from './event-seq.js';
import { aggregateBatch, compileMeter, subjectOf } from './aggregates.js';
import { holdsTotals } from './pending-totals.js';
import { meterResetsRepository } from './resets-repository.js';
import { metersRepository, type Meter } from './repository.js';
import { deferAddTotals } from './totals-upsert.js';

/** Events read per step of a recount. */
const STEP = 5_000;

/**
 * At a daemon's start on SQLite, before anything is ingested: the customer meter totals of the events after the
 * `totals` mark, which the daemon before held in memory and did not write (it was killed; pending-totals.ts), counted
 * again from the events, and the mark moved to the last event. Each meter counts what ingestion would have counted for
 * it: the events after its backfill's target (those before are the backfill's) and, per customer, after their last
 * reset and after what a slice of a held write already counted in their row (`held_through_seq`). Answers how many
 * events were read (0: nothing was left).
 */
export async function recountHeldTotals(db: Db, at: Date): Promise<number> {
  if (!holdsTotals(db)) return 0;
  return transaction(db, async (trx) => {
    const mark = (await trx('event_index_marks').where('name', 'totals').first('seq')) as
      { seq: number | string } | undefined;
    const through = await lastEventSeq(trx);
    if (!mark || through <= Number(mark.seq)) return 0;
    // Rows a write in slices reached before the stop, and the event each counts through (pending-totals.ts).
    const heldThrough = new Map(
      (
        (await trx('meter_totals')
          .where('held_through_seq', '>', Number(mark.seq))
          .select('meter_id', 'subject', 'held_through_seq')) as Array<{
          meter_id: string;
          subject: string;
          held_through_seq: number | string;
        }>
      ).map((row) => [`${row.meter_id}|${row.subject}`, Number(row.held_through_seq)]),
    );
    const aggregates = meterAggregatesRepository(trx);
    const metersOf = new Map<string, Meter[]>();
    const resetsOf = new Map<string, Map<string, number>>();
    let after = Number(mark.seq);
    let read = 0;
    for (;;) {
      const rows = await aggregates.eventsAfter(null, after, through, STEP);
      const organizations = [...new Set(rows.map((row) => row.event.organizationId))];
      for (const organizationId of organizations) {
        if (!metersOf.has(organizationId))
          metersOf.set(organizationId, await metersRepository(trx).activeOf(organizationId));
        const own = rows.filter((row) => row.event.organizationId === organizationId);
        for (const meter of metersOf.get(organizationId)!) {
          if (!resetsOf.has(meter.id)) resetsOf.set(meter.id, await meterResetsRepository(trx).resetSeqs(meter.id));
          const resets = resetsOf.get(meter.id)!;
          const split = meter.backfillTarget ?? meter.backfillCursor;
          const counted = own.filter((row) => {
            const subject = subjectOf(row.event);
            return (
              row.seq > split &&
              (subject === null ||
                (row.seq > (resets.get(subject) ?? 0) && row.seq > (heldThrough.get(`${meter.id}|${subject}`) ?? 0)))
            );
          });
          const { totals } = aggregateBatch(
            [compileMeter(meter)],
            counted.map((row) => row.event),
            { sorted: false },
          );
          await deferAddTotals(trx, totals, at.getTime());
        }
      }
      read += rows.length;
      if (rows.length < STEP) break;
      after = rows[rows.length - 1]!.seq;
    }
    await trx('event_index_marks').where('name', 'totals').update({ seq: through });
    return read;
  });
}
