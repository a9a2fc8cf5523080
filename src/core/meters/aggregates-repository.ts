import type { Knex } from 'knex';
import { orderCustomerMeters } from './customer-meter-order.js';
import { customerIndexRepository } from './events-by-customer.js';
import type { Db, Deferred } from '../database/index.js';
import { parseJson, toDate, toDateOrNull } from '../database/index.js';
import type { AggregatedEvent, BatchDeltas, BucketDelta } from './aggregates.js';
import { insertJsonRows, type JsonColumn } from './json-rows.js';
import { forgetKnownValues } from './known-values.js';
import { settleTotals } from './pending-totals.js';
import { ADD_FIGURES, FIGURES, deferAddTotals, deferMergeTotals, figuresOf } from './totals-upsert.js';

const BUCKET_COLUMNS: JsonColumn[] = [
  { name: 'meter_id', type: 'uuid' },
  { name: 'bucket', type: 'bigint' },
  ...FIGURES,
];

export interface StoredTotal {
  id: string;
  meterId: string;
  subject: string;
  organizationId: string;
  customerId: string | null;
  externalCustomerId: string | null;
  events: number;
  valueCount: number;
  valueSum: number;
  valueMin: number | null;
  valueMax: number | null;
  credited: number;
  createdAt: Date;
  modifiedAt: Date | null;
}

function totalFromRow(row: Record<string, unknown>): StoredTotal {
  const numberOrNull = (value: unknown) => (value === null || value === undefined ? null : Number(value));
  return {
    id: String(row.id),
    meterId: String(row.meter_id),
    subject: String(row.subject),
    organizationId: String(row.organization_id),
    customerId: (row.customer_id as string | null) ?? null,
    externalCustomerId: (row.external_customer_id as string | null) ?? null,
    events: Number(row.events),
    valueCount: Number(row.value_count),
    valueSum: Number(row.value_sum),
    valueMin: numberOrNull(row.value_min),
    valueMax: numberOrNull(row.value_max),
    credited: Number(row.credited),
    createdAt: toDate(row.created_at),
    modifiedAt: toDateOrNull(row.modified_at),
  };
}

export interface StoredBucket {
  bucket: number;
  events: number;
  valueCount: number;
  valueSum: number;
  valueMin: number | null;
  valueMax: number | null;
}

function eventFromRow(row: Record<string, unknown>): AggregatedEvent {
  return {
    organizationId: String(row.organization_id),
    customerId: (row.customer_id as string | null) ?? null,
    externalCustomerId: (row.external_customer_id as string | null) ?? null,
    name: String(row.name),
    source: String(row.source),
    timestamp: Number(row.timestamp),
    metadata: parseJson<Record<string, unknown>>(row.metadata) ?? {},
  };
}

/** What a backfill reads of an event: its seq and what aggregation folds (eventFromRow). */
const EVENT_COLUMNS = [
  'seq',
  'organization_id',
  'customer_id',
  'external_customer_id',
  'name',
  'source',
  'timestamp',
  'metadata',
] as const;

export interface CustomerMeterRow {
  total: StoredTotal;
  customerId: string;
}

export function meterAggregatesRepository(db: Db) {
  function bucketStatement(rows: readonly BucketDelta[]): Deferred | null {
    if (rows.length === 0) return null;
    return insertJsonRows(
      db,
      'meter_buckets',
      BUCKET_COLUMNS,
      rows.map((row) => [row.meterId, row.bucket, ...figuresOf(row)]),
      `ON CONFLICT (meter_id, bucket) DO UPDATE SET ${ADD_FIGURES('meter_buckets')}`,
    );
  }

  function valueStatement(
    table: string,
    key: JsonColumn,
    rows: ReadonlyArray<readonly [string, string | number, string]>,
  ): Deferred | null {
    if (rows.length === 0) return null;
    return insertJsonRows(
      db,
      table,
      [{ name: 'meter_id', type: 'uuid' }, key, { name: 'value', type: 'text' }],
      rows as unknown as unknown[][],
      'ON CONFLICT DO NOTHING',
    );
  }

  return {
    /**
     * The statements that add a batch's deltas, in the order every transaction sends them (see aggregateBatch). With
     * `merge` (PostgreSQL, one organization's sorted deltas) the totals go in by MERGE, and the caller runs its
     * transaction again when it fails with `isTotalsRace` (totals-upsert.ts).
     */
    deferAdd(deltas: BatchDeltas, at: Date, options: { merge?: boolean } = {}): Deferred[] {
      return [
        options.merge
          ? deferMergeTotals(db, deltas.totals, at.getTime())
          : deferAddTotals(db, deltas.totals, at.getTime()),
        valueStatement('meter_unique_values', { name: 'subject', type: 'text' }, deltas.uniqueValues),
        bucketStatement(deltas.buckets),
        valueStatement('meter_bucket_values', { name: 'bucket', type: 'bigint' }, deltas.bucketValues),
      ].filter((statement): statement is Deferred => statement !== null);
    },

    /**
     * Forgets everything counted for a meter (its filter or aggregation changed; a backfill counts again). Customer
     * meters keep their credits and their last reset (metered billing), so the recount starts after what was billed.
     */
    async clear(meterId: string, organizationId: string): Promise<void> {
      await settleTotals(db);
      await db('meter_totals')
        .where({ meter_id: meterId })
        .update({ events: 0, value_count: 0, value_sum: 0, value_min: null, value_max: null });
      for (const table of ['meter_unique_values', 'meter_buckets', 'meter_bucket_values'])
        await db(table).where({ meter_id: meterId }).delete();
      await forgetKnownValues(db, organizationId);
    },

    async totals(meterIds: readonly string[], subjects: readonly string[]): Promise<StoredTotal[]> {
      if (meterIds.length === 0 || subjects.length === 0) return [];
      await settleTotals(db);
      const rows = (await db('meter_totals')
        .whereIn('meter_id', [...meterIds])
        .whereIn('subject', [...subjects])) as Array<Record<string, unknown>>;
      return rows.map(totalFromRow);
    },

    /** Every row of one customer: by id, and those of events sent by their external id before they existed. */
    async totalsOfCustomer(customer: {
      id: string;
      organizationId: string;
      externalId: string | null;
    }): Promise<StoredTotal[]> {
      return (await this.totalsOfCustomers([customer])).get(customer.id) ?? [];
    },

    /**
     * The running totals of each of these customers, in one query: their rows by customer id, and the rows of events
     * sent by external id before the customer existed (no customer id yet). By customer id; a customer without any
     * maps to nothing.
     */
    async totalsOfCustomers(
      customers: ReadonlyArray<{ id: string; organizationId: string; externalId: string | null }>,
    ): Promise<Map<string, StoredTotal[]>> {
      const byCustomer = new Map<string, StoredTotal[]>();
      if (customers.length === 0) return byCustomer;
      // Only when totals are held: otherwise the query goes out in this tick, with the caller's other reads.
      const settling = settleTotals(db);
      if (settling) await settling;
      const query = db('meter_totals').whereIn(
        'customer_id',
        customers.map((customer) => customer.id),
      );
      // One (organization, external id) pair per customer with an external id: read per organization.
      const pending = new Map<string, string>();
      const byOrganization = new Map<string, string[]>();
      for (const customer of customers) {
        if (customer.externalId === null) continue;
        pending.set(`${customer.organizationId}|${customer.externalId}`, customer.id);
        const externalIds = byOrganization.get(customer.organizationId);
        if (externalIds) externalIds.push(customer.externalId);
        else byOrganization.set(customer.organizationId, [customer.externalId]);
      }
      for (const [organizationId, externalIds] of byOrganization)
        query.orWhere((rows) => {
          rows
            .where('organization_id', organizationId)
            .whereIn('external_customer_id', externalIds)
            .whereNull('customer_id');
        });
      for (const row of ((await query) as Array<Record<string, unknown>>).map(totalFromRow)) {
        const owner = row.customerId ?? pending.get(`${row.organizationId}|${row.externalCustomerId}`);
        if (owner === undefined) continue;
        const own = byCustomer.get(owner);
        if (own) own.push(row);
        else byCustomer.set(owner, [row]);
      }
      return byCustomer;
    },

    /**
     * Given customers' user events with a timestamp in [from, to): by customer id, and by external id for those sent
     * before the customer existed. For per-customer series, whose size is bounded by those customers' events.
     */
    async eventsOfCustomers(
      organizationId: string,
      customers: ReadonlyArray<{ id: string; externalId: string | null }>,
      from: number,
      to: number,
    ): Promise<AggregatedEvent[]> {
      const externalIds = customers.flatMap((customer) => (customer.externalId === null ? [] : [customer.externalId]));
      const query = db('events')
        .where('source', 'user')
        .where('timestamp', '>=', from)
        .where('timestamp', '<', to)
        .where((who) => {
          who.where(customerIndexRepository(db).ofCustomers(customers.map((customer) => customer.id)));
          if (externalIds.length > 0)
            who.orWhere((pending) => {
              pending
                .where('organization_id', organizationId)
                .whereNull('customer_id')
                .whereIn('external_customer_id', externalIds);
            });
        })
        .select('organization_id', 'customer_id', 'external_customer_id', 'name', 'source', 'timestamp', 'metadata');
      return ((await query) as Array<Record<string, unknown>>).map(eventFromRow);
    },

    /**
     * One customer's user events in (after, through] by seq, in no order: by customer id, and by external id for those
     * sent before the customer existed. What a backfill has not reached yet of the customer a bill is for
     * (backfill-catch-up.ts).
     */
    async eventsOfCustomerBetween(
      customer: { id: string; organizationId: string; externalId: string | null },
      after: number,
      through: number,
    ) {
      const query = db('events').where('source', 'user');
      // SQLite plans without statistics and takes a range of seqs (its rowid) over the customer's entries, reading
      // the backfill's whole backlog; kept off the rowid, it reads the customer's events. PostgreSQL weighs both.
      if (customerIndexRepository(db).lazy) query.whereRaw('+seq > ? AND +seq <= ?', [after, through]);
      else query.where('seq', '>', after).where('seq', '<=', through);
      const rows = (await query
        .where((who) => {
          who.where(customerIndexRepository(db).ofCustomers([customer.id]));
          if (customer.externalId !== null)
            who.orWhere((pending) => {
              pending
                .where('organization_id', customer.organizationId)
                .whereNull('customer_id')
                .where('external_customer_id', customer.externalId);
            });
        })
        .select(...EVENT_COLUMNS)) as Array<Record<string, unknown>>;
      return rows.map((row) => ({ seq: Number(row.seq), event: eventFromRow(row) }));
    },

    /** A backfill step: the organization's (null: every organization's) user events in (after, through], oldest first. */
    async eventsAfter(organizationId: string | null, after: number, through: number, limit: number) {
      const query = db('events');
      if (organizationId !== null) query.where('organization_id', organizationId);
      const rows = (await query
        .where('seq', '>', after)
        .where('seq', '<=', through)
        .where('source', 'user')
        .orderBy('seq')
        .limit(limit)
        .select(...EVENT_COLUMNS)) as Array<Record<string, unknown>>;
      return rows.map((row) => ({ seq: Number(row.seq), event: eventFromRow(row) }));
    },

    async totalById(id: string): Promise<StoredTotal | null> {
      await settleTotals(db);
      const row = (await db('meter_totals').where({ id }).first()) as Record<string, unknown> | undefined;
      return row ? totalFromRow(row) : null;
    },

    /** Distinct values per meter over the given subjects (a customer's `c:` and `x:` rows together). */
    async distinctCounts(meterIds: readonly string[], subjects: readonly string[]): Promise<Map<string, number>> {
      const counts = new Map<string, number>();
      if (meterIds.length === 0 || subjects.length === 0) return counts;
      const rows = (await db('meter_unique_values')
        .whereIn('meter_id', [...meterIds])
        .whereIn('subject', [...subjects])
        .groupBy('meter_id')
        .select('meter_id', db.raw('count(DISTINCT value) as n'))) as Array<{ meter_id: string; n: number | string }>;
      for (const row of rows) counts.set(row.meter_id, Number(row.n));
      return counts;
    },

    async buckets(meterId: string, from: number, to: number): Promise<StoredBucket[]> {
      const rows = (await db('meter_buckets')
        .where({ meter_id: meterId })
        .where('bucket', '>=', from)
        .where('bucket', '<', to)
        .orderBy('bucket')) as Array<Record<string, unknown>>;
      return rows.map((row) => ({
        bucket: Number(row.bucket),
        events: Number(row.events),
        valueCount: Number(row.value_count),
        valueSum: Number(row.value_sum),
        valueMin: row.value_min === null ? null : Number(row.value_min),
        valueMax: row.value_max === null ? null : Number(row.value_max),
      }));
    },

    async bucketValues(meterId: string, from: number, to: number): Promise<Array<{ bucket: number; value: string }>> {
      const rows = (await db('meter_bucket_values')
        .where({ meter_id: meterId })
        .where('bucket', '>=', from)
        .where('bucket', '<', to)
        .select('bucket', 'value')) as Array<{ bucket: number | string; value: string }>;
      return rows.map((row) => ({ bucket: Number(row.bucket), value: row.value }));
    },

    /**
     * Customer meters: a customer's `c:` row, or their `x:` row when they have none (events sent by external id
     * before the customer existed), joined to the live customer they belong to. Readers add the other row.
     */
    async listCustomerMeters(
      filters: {
        organizationIds: string[];
        customerIds?: string[];
        externalCustomerIds?: string[];
        meterIds?: string[];
      },
      options: { page: number; limit: number; sorting: string[] },
    ): Promise<{ rows: CustomerMeterRow[]; total: number }> {
      await settleTotals(db);
      const query = db('meter_totals as t')
        .join('customers as c', (join) => {
          join
            .on('c.organization_id', '=', 't.organization_id')
            .andOnNull('c.deleted_at')
            .andOn((on) => {
              on.on('c.id', '=', 't.customer_id').orOn((pending) => {
                pending.onNull('t.customer_id').andOn('c.external_id', '=', 't.external_customer_id');
              });
            });
        })
        .join('meters as m', 'm.id', 't.meter_id')
        .whereNull('m.archived_at')
        .whereIn('t.organization_id', filters.organizationIds)
        .where((where) => {
          where.whereNotNull('t.customer_id').orWhereNotExists((sub: Knex.QueryBuilder) => {
            sub
              .select(db.raw('1'))
              .from('meter_totals as own')
              .whereRaw('own.meter_id = t.meter_id')
              .whereRaw('own.customer_id = c.id');
          });
        });
      if (filters.customerIds) query.whereIn('c.id', filters.customerIds);
      if (filters.externalCustomerIds) query.whereIn('c.external_id', filters.externalCustomerIds);
      if (filters.meterIds) query.whereIn('t.meter_id', filters.meterIds);
      const countRow = (await query.clone().count({ n: '*' }).first()) as { n: number | string } | undefined;
      const ordered = query.clone().select('t.*', 'c.id as resolved_customer_id');
      orderCustomerMeters(db, ordered, options.sorting);
      const rows = (await ordered.limit(options.limit).offset(options.limit * (options.page - 1))) as Array<
        Record<string, unknown>
      >;
      return {
        rows: rows.map((row) => ({ total: totalFromRow(row), customerId: String(row.resolved_customer_id) })),
        total: Number(countRow?.n ?? 0),
      };
    },
  };
}

export type MeterAggregatesRepository = ReturnType<typeof meterAggregatesRepository>;
