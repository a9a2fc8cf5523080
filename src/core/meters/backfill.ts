import type { Db } from '../database/index.js';
import { schedule } from '../scheduler/schedule.js';
import type { JobHandler } from '../scheduler/service.js';
import { meterAggregatesRepository } from './aggregates-repository.js';
import { aggregateBatch, compileMeter, subjectOf } from './aggregates.js';
import { meterResetsRepository } from './resets-repository.js';
import { metersRepository, type Meter } from './repository.js';

/**
 * A meter created or changed (filter, aggregation) after events exist counts those events in the background: each
 * step is one scheduled job that folds the next events into the meter's aggregates and moves its cursor, in one
 * transaction, then schedules the next step. Events ingested meanwhile are counted by ingestion (they come after the
 * target). Until the target is reached the meter's wire says `backfill_pending: true`.
 */
export const METER_BACKFILL_JOB = 'meter.backfill';

/** Events per step: a step holds SQLite's one connection, so it stays short. */
export const BACKFILL_STEP = 5_000;

export async function scheduleBackfillStep(trx: Db, meter: Meter, at: Date): Promise<void> {
  // The cursor in the subject makes each step its own job (the same kind, subject and time would be one).
  await schedule(trx, { kind: METER_BACKFILL_JOB, subjectId: `${meter.id}:${meter.backfillCursor}`, dueAt: at }, at);
}

export function meterBackfillHandler(): JobHandler {
  return async (trx, job, now) => {
    const meterId = job.subjectId.split(':')[0]!;
    const meters = metersRepository(trx);
    await meters.lockOrganization((await meters.findById(meterId))?.organizationId ?? '', 'exclusive');
    const meter = await meters.findById(meterId);
    if (!meter || meter.backfillTarget === null) return;
    const aggregates = meterAggregatesRepository(trx);
    const rows = await aggregates.eventsAfter(
      meter.organizationId,
      meter.backfillCursor,
      meter.backfillTarget,
      BACKFILL_STEP,
    );
    if (rows.length > 0) {
      // What a customer's meter counted before its last reset was billed (or credited against): not counted again.
      const resetSeqs = await meterResetsRepository(trx).resetSeqs(meter.id);
      const counted = rows.filter((row) => {
        const subject = subjectOf(row.event);
        return subject === null || row.seq > (resetSeqs.get(subject) ?? 0);
      });
      const compiled = [compileMeter(meter)];
      const all = aggregateBatch(
        compiled,
        rows.map((row) => row.event),
      );
      // Quantity series are by event time, over all events; only the customer meters start at their reset.
      const own =
        counted.length === rows.length
          ? all
          : aggregateBatch(
              compiled,
              counted.map((row) => row.event),
            );
      const deltas = { ...all, totals: own.totals, uniqueValues: own.uniqueValues };
      for (const statement of aggregates.deferAdd(deltas, now)) await statement;
    }
    const done = rows.length < BACKFILL_STEP;
    const next: Meter = {
      ...meter,
      backfillCursor: done ? meter.backfillTarget : rows[rows.length - 1]!.seq,
      backfillTarget: done ? null : meter.backfillTarget,
    };
    await meters.update(next);
    if (!done) await scheduleBackfillStep(trx, next, now);
  };
}
