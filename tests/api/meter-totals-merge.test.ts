import { describe, expect, it } from 'vitest';
import { retryingDeadlocks, transaction, type Db } from '../../src/core/database/index.js';
import type { TotalDelta } from '../../src/core/meters/aggregates.js';
import { customerMeterId, deferMergeTotals, isTotalsRace } from '../../src/core/meters/totals-upsert.js';
import { testDialect } from '../helpers/database.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { createCustomer, createMerchant } from '../helpers/v1.js';

/**
 * On PostgreSQL ingestion adds its running totals with MERGE (src/core/meters/totals-upsert.ts). Two groups that
 * both create one customer meter's row do not wait for each other as `ON CONFLICT` did: the later fails, and
 * ingestion runs its transaction again, which then adds to the row the first stored.
 */

const daemon = useTestDaemon();

const callsMeter = {
  name: 'Calls',
  filter: { conjunction: 'and', clauses: [{ property: 'name', operator: 'eq', value: 'call' }] },
  aggregation: { func: 'sum', property: 'units' },
};

async function setUp() {
  const merchant = await createMerchant(daemon());
  const buyer = await createCustomer(merchant);
  const created = await merchant.api.post('/v1/meters/', callsMeter);
  expect(created.status, created.text).toBe(201);
  const delta = (units: number): TotalDelta => ({
    meterId: created.json.id as string,
    subject: `c:${buyer.id}`,
    organizationId: merchant.organization.id,
    customerId: buyer.id,
    externalCustomerId: null,
    events: 1,
    valueCount: 1,
    valueSum: units,
    valueMin: units,
    valueMax: units,
  });
  return { merchant, buyer, meterId: created.json.id as string, delta };
}

/** Whether a statement of another backend waits for a lock (the second MERGE, behind the first's new row). */
async function someoneWaits(db: Db): Promise<boolean> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const rows = (await db.raw(
      "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'MERGE INTO meter_totals%'",
    )) as { rows: unknown[] };
    if (rows.rows.length > 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return false;
}

describe.runIf(testDialect === 'postgres')('meter totals merged on PostgreSQL', () => {
  it('fails the later of two groups creating one row as a race, and adds it up when run again', async () => {
    const { merchant, buyer, meterId, delta } = await setUp();
    const db = daemon().core.db;
    const at = Date.now();

    const first = await db.transaction();
    await deferMergeTotals(first, [delta(3)], at);
    let runs = 0;
    const second = retryingDeadlocks(
      () =>
        transaction(db, async (trx) => {
          runs += 1;
          await deferMergeTotals(trx, [delta(4)], at);
        }),
      isTotalsRace,
    );
    expect(await someoneWaits(db)).toBe(true);
    await first.commit();
    await second;
    expect(runs).toBe(2);

    const meters = await merchant.api.get('/v1/customer-meters/', {
      query: { customer_id: buyer.id, meter_id: meterId },
    });
    expect(meters.status, meters.text).toBe(200);
    expect(meters.json.items.map((item: { consumed_units: number }) => item.consumed_units)).toEqual([7]);
  });

  it('names only that race: another unique violation is not retried', async () => {
    const { delta } = await setUp();
    const db = daemon().core.db;
    const raced = await db.transaction();
    const other = await db.transaction();
    await deferMergeTotals(raced, [delta(1)], Date.now());
    const blocked = deferMergeTotals(other, [delta(1)], Date.now())!.then(
      () => null,
      (error: unknown) => error,
    );
    expect(await someoneWaits(db)).toBe(true);
    await raced.commit();
    const error = await blocked;
    await other.rollback();
    expect(isTotalsRace(error)).toBe(true);
    expect(isTotalsRace({ code: '23505', constraint: 'events_external_id_unique' })).toBe(false);
    expect(isTotalsRace({ code: '40P01' })).toBe(false);
  });

  it('gives the rows it creates the id and customer that customerMeterId and the subject name', async () => {
    const { merchant, buyer, meterId, delta } = await setUp();
    const db = daemon().core.db;
    // External ids of every kind a client may send: each subject's hash must be the daemon's, byte for byte.
    const externalIds = ['user-1', 'Ünïcødé 用户 🎉', "quote ' and | bar", ''];
    const rows: TotalDelta[] = [
      { ...delta(2), externalCustomerId: 'ext-of-buyer' },
      ...externalIds.map((externalId) => ({
        ...delta(1),
        subject: `x:${externalId}`,
        customerId: null,
        externalCustomerId: externalId,
      })),
    ];
    await transaction(db, async (trx) => {
      await deferMergeTotals(trx, rows, Date.now());
    });
    const stored = (await db('meter_totals')
      .where({ meter_id: meterId })
      .select('id', 'subject', 'customer_id', 'external_customer_id', 'organization_id')) as Array<{
      id: string;
      subject: string;
      customer_id: string | null;
      external_customer_id: string | null;
      organization_id: string;
    }>;
    expect(stored.sort((a, b) => (a.subject < b.subject ? -1 : 1))).toEqual(
      rows
        .map((row) => ({
          id: customerMeterId(meterId, row.subject),
          subject: row.subject,
          customer_id: row.customerId,
          external_customer_id: row.externalCustomerId,
          organization_id: merchant.organization.id,
        }))
        .sort((a, b) => (a.subject < b.subject ? -1 : 1)),
    );
    expect(stored.find((row) => row.subject === `c:${buyer.id}`)?.customer_id).toBe(buyer.id);
  });

  it('takes one organization a statement', async () => {
    const { delta } = await setUp();
    const other = { ...delta(1), organizationId: 'org_other' };
    expect(() => deferMergeTotals(daemon().core.db, [delta(1), other], Date.now())).toThrow(/one organization/);
  });
});
