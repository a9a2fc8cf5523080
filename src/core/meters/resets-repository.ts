import type { Db } from '../database/index.js';
import { customerSubject, subjectsOfCustomer } from './aggregates.js';
import { lastEventSeq } from './event-seq.js';
import { forgetKnownValues } from './known-values.js';
import { settleTotals } from './pending-totals.js';
import { customerMeterId } from './totals-upsert.js';

/** The customer a meter row belongs to: their `c:` row, and the `x:` row of events sent before they existed. */
export interface MeterCustomer {
  id: string;
  organizationId: string;
  externalId: string | null;
}

export interface ResetState {
  /** Epoch ms of the last reset, null if the customer's meter never was. */
  resetAt: number | null;
  /** The credit left at that reset (whole units), until a rollover credit carries it on. */
  resetBalance: number;
}

/** A row's figures with nothing counted or credited: a new row's, and a reset's. */
const ZEROED = {
  events: 0,
  value_count: 0,
  value_sum: 0,
  value_min: null,
  value_max: null,
  credited: 0,
} as const;

/**
 * Credits and resets of customer meters, on the `meter_totals` rows the ingestion keeps (aggregates-repository.ts):
 * a credit adds to the customer's `c:` row (created empty if they never used the meter), a reset zeroes their rows'
 * figures in place. Both are one or two statements whatever the history.
 */
export function meterResetsRepository(db: Db) {
  /**
   * The customer's `c:` row, created with nothing counted if missing (a credit or reset before any usage), after the
   * totals ingestion holds are written (a reset zeroes what was counted before it).
   */
  async function ensureRow(meterId: string, customer: MeterCustomer, at: Date): Promise<void> {
    await settleTotals(db);
    const subject = customerSubject(customer.id);
    await db('meter_totals')
      .insert({
        meter_id: meterId,
        subject,
        id: customerMeterId(meterId, subject),
        organization_id: customer.organizationId,
        customer_id: customer.id,
        external_customer_id: customer.externalId,
        ...ZEROED,
        created_at: at,
        modified_at: at,
      })
      .onConflict(['meter_id', 'subject'])
      .ignore();
  }

  return {
    /** Adds `units` (negative: takes back) to the customer's credited units, which never go below 0 (Polar's rule). */
    async credit(meterId: string, customer: MeterCustomer, units: number, at: Date): Promise<void> {
      await ensureRow(meterId, customer, at);
      await db('meter_totals')
        .where({ meter_id: meterId, subject: customerSubject(customer.id) })
        .update({
          credited: db.raw('CASE WHEN credited + ? < 0 THEN 0 ELSE credited + ? END', [units, units]),
          modified_at: at,
        });
    },

    /**
     * Zeroes the customer's figures and credits for the meter (consumed and credited count again from now), and
     * records when, the balance left, and the last event seq the zeroed figures covered.
     */
    async reset(meterId: string, customer: MeterCustomer, at: Date, balance: number): Promise<void> {
      await ensureRow(meterId, customer, at);
      const subjects = subjectsOfCustomer(customer);
      const last = await lastEventSeq(db);
      await db('meter_totals')
        .where({ meter_id: meterId })
        .whereIn('subject', subjects)
        .update({
          ...ZEROED,
          reset_at: at.getTime(),
          reset_seq: last,
          modified_at: at,
        });
      await db('meter_totals')
        .where({ meter_id: meterId, subject: customerSubject(customer.id) })
        .update({ reset_balance: balance });
      await db('meter_unique_values').where({ meter_id: meterId }).whereIn('subject', subjects).delete();
      await forgetKnownValues(db, customer.organizationId);
    },

    async state(meterId: string, customerId: string): Promise<ResetState> {
      const row = (await db('meter_totals')
        .where({ meter_id: meterId, subject: customerSubject(customerId) })
        .first('reset_at', 'reset_balance')) as
        { reset_at: number | string | null; reset_balance: number | string } | undefined;
      return {
        resetAt: row?.reset_at === null || row?.reset_at === undefined ? null : Number(row.reset_at),
        resetBalance: Number(row?.reset_balance ?? 0),
      };
    },

    /** The balance left at the last reset, handed to one rollover credit (a second benefit finds 0). */
    async takeResetBalance(meterId: string, customerId: string): Promise<number> {
      const { resetBalance } = await this.state(meterId, customerId);
      if (resetBalance > 0)
        await db('meter_totals')
          .where({ meter_id: meterId, subject: customerSubject(customerId) })
          .update({ reset_balance: 0 });
      return resetBalance;
    },

    /** resetSeqs for some subjects of some meters (one customer's), keyed `meter id|subject`. */
    async resetSeqsOf(meterIds: readonly string[], subjects: readonly string[]): Promise<Map<string, number>> {
      const rows = (await db('meter_totals')
        .whereIn('meter_id', [...meterIds])
        .whereIn('subject', [...subjects])
        .where('reset_seq', '>', 0)
        .select('meter_id', 'subject', 'reset_seq')) as Array<{
        meter_id: string;
        subject: string;
        reset_seq: number | string;
      }>;
      return new Map(rows.map((row) => [`${row.meter_id}|${row.subject}`, Number(row.reset_seq)]));
    },

    /** Per subject of a meter, the last event seq its last reset covered (a backfill skips those events). */
    async resetSeqs(meterId: string): Promise<Map<string, number>> {
      const rows = (await db('meter_totals')
        .where({ meter_id: meterId })
        .where('reset_seq', '>', 0)
        .select('subject', 'reset_seq')) as Array<{ subject: string; reset_seq: number | string }>;
      return new Map(rows.map((row) => [row.subject, Number(row.reset_seq)]));
    },
  };
}
