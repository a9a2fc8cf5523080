import { describe, expect, it } from 'vitest';
import { transaction } from '../../src/core/database/index.js';
import { customersRepository } from '../../src/core/customers/repository.js';
import { resetMeters } from '../../src/core/metered-billing/usage.js';
import { testDialect } from '../helpers/database.js';
import { startTestDaemon, useTestDaemon } from '../helpers/daemon.js';
import { createCustomer, createMerchant, type Merchant } from '../helpers/v1.js';

/**
 * Ingestion does not send the values of `unique` meters it knows are stored (src/core/meters/known-values.ts).
 * Whatever deletes them must make it forget: a value seen before a reset, or before the meter changed, counts again
 * when it comes again. On PostgreSQL also when another daemon on the same database deleted them.
 */

const daemon = useTestDaemon();

const regionsMeter = {
  name: 'Regions',
  filter: { conjunction: 'and', clauses: [{ property: 'name', operator: 'eq', value: 'call' }] },
  aggregation: { func: 'unique', property: 'region' },
};

async function ingest(merchant: Merchant, customerId: string, name: string, regions: string[]) {
  const response = await merchant.api.post('/v1/events/ingest', {
    events: regions.map((region) => ({ name, customer_id: customerId, metadata: { region } })),
  });
  expect(response.status, response.text).toBe(200);
}

async function consumed(merchant: Merchant, customerId: string, meterId: string): Promise<number> {
  const response = await merchant.api.get('/v1/customer-meters/', {
    query: { customer_id: customerId, meter_id: meterId },
  });
  expect(response.status, response.text).toBe(200);
  return response.json.items[0]?.consumed_units ?? 0;
}

async function setUp() {
  const merchant = await createMerchant(daemon());
  const buyer = await createCustomer(merchant);
  const created = await merchant.api.post('/v1/meters/', regionsMeter);
  expect(created.status, created.text).toBe(201);
  return { merchant, buyer, meterId: created.json.id as string };
}

describe('unique meters: values known to be stored', () => {
  it('counts a value again after the customer meter is reset', async () => {
    const { merchant, buyer, meterId } = await setUp();
    await ingest(merchant, buyer.id, 'call', ['eu', 'us', 'eu']);
    await ingest(merchant, buyer.id, 'call', ['eu']);
    expect(await consumed(merchant, buyer.id, meterId)).toBe(2);

    await transaction(daemon().core.db, async (trx) => {
      const row = (await customersRepository(trx).findAnyById(buyer.id))!;
      await resetMeters(trx, row, [{ meterId, consumed: 2, credited: 0 }], new Date());
    });
    expect(await consumed(merchant, buyer.id, meterId)).toBe(0);

    await ingest(merchant, buyer.id, 'call', ['eu']);
    expect(await consumed(merchant, buyer.id, meterId)).toBe(1);
    await ingest(merchant, buyer.id, 'call', ['us', 'ap']);
    expect(await consumed(merchant, buyer.id, meterId)).toBe(3);
  });

  it('counts a value again after the meter changes and is counted anew', async () => {
    const { merchant, buyer, meterId } = await setUp();
    await ingest(merchant, buyer.id, 'call', ['eu', 'us']);
    expect(await consumed(merchant, buyer.id, meterId)).toBe(2);

    // Now only `job` events count: the events so far no longer do, and the recount forgets their values.
    const changed = await merchant.api.call('PATCH', `/v1/meters/${meterId}`, {
      body: { filter: { conjunction: 'and', clauses: [{ property: 'name', operator: 'eq', value: 'job' }] } },
    });
    expect(changed.status, changed.text).toBe(200);
    await daemon().core.scheduler.drain();
    expect(await consumed(merchant, buyer.id, meterId)).toBe(0);

    await ingest(merchant, buyer.id, 'job', ['eu']);
    expect(await consumed(merchant, buyer.id, meterId)).toBe(1);
    const series = await merchant.api.get(`/v1/meters/${meterId}/quantities`, {
      query: {
        start_timestamp: new Date(daemon().clock.now().getTime() - 3_600_000).toISOString(),
        end_timestamp: new Date(daemon().clock.now().getTime() + 3_600_000).toISOString(),
        interval: 'hour',
      },
    });
    expect(series.status, series.text).toBe(200);
    expect(series.json.total).toBe(1);
  });

  it.runIf(testDialect === 'postgres')('PostgreSQL: counts a value again after another daemon resets', async () => {
    const { merchant, buyer, meterId } = await setUp();
    await ingest(merchant, buyer.id, 'call', ['eu', 'us']);
    await ingest(merchant, buyer.id, 'call', ['eu']);
    expect(await consumed(merchant, buyer.id, meterId)).toBe(2);

    const other = await startTestDaemon({ databaseUrl: daemon().database.url });
    try {
      await transaction(other.core.db, async (trx) => {
        const row = (await customersRepository(trx).findAnyById(buyer.id))!;
        await resetMeters(trx, row, [{ meterId, consumed: 2, credited: 0 }], new Date());
      });
    } finally {
      await other.stop();
    }
    expect(await consumed(merchant, buyer.id, meterId)).toBe(0);
    await ingest(merchant, buyer.id, 'call', ['eu', 'us']);
    expect(await consumed(merchant, buyer.id, meterId)).toBe(2);
  });
});
