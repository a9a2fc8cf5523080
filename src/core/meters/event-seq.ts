import type { Db } from '../database/index.js';

/**
 * The seq of the last event written (0 before any): how far ingestion has got, against which the marks of what is
 * derived from events (`event_index_marks`: the customer index, the written totals) and a reset's cover are set.
 */
export async function lastEventSeq(db: Db): Promise<number> {
  const row = (await db('events').max({ seq: 'seq' }).first()) as { seq: number | string | null } | undefined;
  return Number(row?.seq ?? 0);
}
