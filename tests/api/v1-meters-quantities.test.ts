import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { createCustomer, createMerchant, type Merchant } from '../helpers/v1.js';

/**
 * GET /v1/meters/{id}/quantities with Polar's customer_aggregation_function, metadata[key]=value and timezone. For
 * given customers (their events are read) every combination is answered; for all customers (hourly aggregates)
 * what the aggregates cannot answer exactly is a 422 at the parameter, never a silently different series.
 */

const daemon = useTestDaemon();

const liteMaxMeter = {
  name: 'Lite max',
  filter: { conjunction: 'and', clauses: [{ property: 'model', operator: 'eq', value: 'lite' }] },
  aggregation: { func: 'max', property: 'tokens' },
};

async function meter(merchant: Merchant, body: object): Promise<string> {
  const created = await merchant.api.post('/v1/meters/', body);
  expect(created.status, created.text).toBe(201);
  return created.json.id as string;
}

async function ingest(merchant: Merchant, events: object[]): Promise<void> {
  const response = await merchant.api.post('/v1/events/ingest', { events });
  expect(response.status, response.text).toBe(200);
}

async function quantities(merchant: Merchant, meterId: string, query: string) {
  return merchant.api.get(`/v1/meters/${meterId}/quantities?${query}`);
}

const DAY = 'start_timestamp=2026-11-20T00:00:00Z&end_timestamp=2026-11-20T23:00:00Z&interval=day';
const AT = '2026-11-20T10:00:00Z';

/** Polar's own test of per-customer aggregation (server/tests/meter/test_service.py): two customers, a max meter. */
async function twoCustomers(merchant: Merchant) {
  const first = await createCustomer(merchant, 'first-ext');
  const second = await createCustomer(merchant);
  const meterId = await meter(merchant, liteMaxMeter);
  // Created before the events, so no backfill is pending when it is read.
  const sumId = await meter(merchant, {
    ...liteMaxMeter,
    name: 'Lite sum',
    aggregation: { func: 'sum', property: 'tokens' },
  });
  await ingest(merchant, [
    { name: 'call', customer_id: first.id, timestamp: AT, metadata: { tokens: 20, model: 'lite' } },
    { name: 'call', external_customer_id: 'first-ext', timestamp: AT, metadata: { tokens: 10, model: 'lite' } },
    { name: 'call', customer_id: second.id, timestamp: AT, metadata: { tokens: 10, model: 'lite' } },
    { name: 'call', customer_id: second.id, timestamp: AT, metadata: { tokens: 0, model: 'lite' } },
    { name: 'call', customer_id: second.id, timestamp: AT, metadata: { tokens: 100, model: 'pro' } },
  ]);
  return { first, second, meterId, sumId };
}

describe('customer_aggregation_function', () => {
  it('figures the meter per customer, then combines customers (given customers)', async () => {
    const merchant = await createMerchant(daemon());
    const { first, second, meterId } = await twoCustomers(merchant);
    const expected = { count: 2, sum: 30, max: 20, min: 10, avg: 15, unique: 2 };
    for (const [func, value] of Object.entries(expected)) {
      const response = await quantities(
        merchant,
        meterId,
        `${DAY}&customer_id=${first.id}&customer_id=${second.id}&customer_aggregation_function=${func}`,
      );
      expect(response.status, response.text).toBe(200);
      expect(response.json, func).toEqual({
        quantities: [{ timestamp: '2026-11-20T00:00:00.000Z', quantity: value }],
        total: value,
      });
    }
    // Without it, the meter's own aggregation over every event.
    const plain = await quantities(merchant, meterId, `${DAY}&customer_id=${first.id}&customer_id=${second.id}`);
    expect(plain.json.total).toBe(20);
  });

  it('answers from the hourly aggregates what they hold exactly, and refuses the rest with a 422', async () => {
    const merchant = await createMerchant(daemon());
    const { first, second, meterId, sumId } = await twoCustomers(merchant);
    const both = `customer_id=${first.id}&customer_id=${second.id}`;
    const max = await quantities(merchant, meterId, `${DAY}&customer_aggregation_function=max`);
    expect(max.status, max.text).toBe(200);
    expect(max.json).toEqual(
      (await quantities(merchant, meterId, `${DAY}&${both}&customer_aggregation_function=max`)).json,
    );
    expect(max.json.total).toBe(20);

    const summed = await quantities(merchant, sumId, `${DAY}&customer_aggregation_function=sum`);
    expect(summed.status, summed.text).toBe(200);
    expect(summed.json.total).toBe(40);
    expect(summed.json).toEqual(
      (await quantities(merchant, sumId, `${DAY}&${both}&customer_aggregation_function=sum`)).json,
    );

    for (const func of ['count', 'sum', 'min', 'avg', 'unique']) {
      const refused = await quantities(merchant, meterId, `${DAY}&customer_aggregation_function=${func}`);
      expect(refused.status, `${func}: ${refused.text}`).toBe(422);
      expect(refused.json.detail[0].loc).toEqual(['query', 'customer_aggregation_function']);
      expect(refused.json.detail[0].msg).toContain('customer_id');
    }
    const unknown = await quantities(merchant, meterId, `${DAY}&customer_aggregation_function=median`);
    expect(unknown.status).toBe(422);
    expect(unknown.json.detail[0].loc).toEqual(['query', 'customer_aggregation_function']);
  });
});

describe('metadata[key]=value', () => {
  it("filters given customers' events by metadata, values of a key ORed, numbers by their spelling", async () => {
    const merchant = await createMerchant(daemon());
    const buyer = await createCustomer(merchant);
    const calls = await meter(merchant, {
      name: 'Calls',
      filter: { conjunction: 'and', clauses: [{ property: 'name', operator: 'eq', value: 'call' }] },
      aggregation: { func: 'count' },
    });
    await ingest(
      merchant,
      [
        { tokens: 20, model: 'lite' },
        { tokens: 10, model: 'lite' },
        { tokens: 10, model: 'lite' },
        { tokens: 0, model: 'lite' },
        { tokens: 100, model: 'pro' },
        { tokens: 5, model: 'max', beta: true },
      ].map((metadata) => ({ name: 'call', customer_id: buyer.id, timestamp: AT, metadata })),
    );
    const total = async (filters: string) => {
      const response = await quantities(merchant, calls, `${DAY}&customer_id=${buyer.id}&${filters}`);
      expect(response.status, response.text).toBe(200);
      return response.json.total as number;
    };
    expect(await total('metadata[model]=lite')).toBe(4);
    expect(await total('metadata[model]=lite&metadata[model]=pro')).toBe(5);
    expect(await total('metadata[tokens]=10')).toBe(2);
    expect(await total('metadata[model]=lite&metadata[tokens]=10')).toBe(2);
    expect(await total('metadata[beta]=true')).toBe(1);
    expect(await total('metadata[model]=none')).toBe(0);
    expect(await total('metadata[model]=lite&customer_aggregation_function=count')).toBe(1);

    const refused = await quantities(merchant, calls, `${DAY}&metadata[model]=lite`);
    expect(refused.status, refused.text).toBe(422);
    expect(refused.json.detail[0].loc).toEqual(['query', 'metadata']);
    const malformed = await quantities(merchant, calls, `${DAY}&customer_id=${buyer.id}&metadata=lite`);
    expect(malformed.status).toBe(422);
  });
});

describe('timezone', () => {
  async function calls(merchant: Merchant, timestamps: string[]) {
    const buyer = await createCustomer(merchant);
    const meterId = await meter(merchant, {
      name: 'Calls',
      filter: { conjunction: 'and', clauses: [{ property: 'name', operator: 'eq', value: 'call' }] },
      aggregation: { func: 'count' },
    });
    await ingest(
      merchant,
      timestamps.map((timestamp) => ({ name: 'call', customer_id: buyer.id, timestamp })),
    );
    return { buyer, meterId };
  }

  it("starts days at the zone's midnight, stamped with its offset, for all customers and for some", async () => {
    const merchant = await createMerchant(daemon());
    // 22:00 on the 20th and 01:00 on the 21st in New York (UTC-5 in November).
    const { buyer, meterId } = await calls(merchant, ['2026-11-21T03:00:00Z', '2026-11-21T06:00:00Z']);
    const range = 'start_timestamp=2026-11-20T12:00:00Z&end_timestamp=2026-11-21T10:00:00Z&interval=day';
    const utc = await quantities(merchant, meterId, range);
    expect(utc.json.quantities.map((point: { quantity: number }) => point.quantity)).toEqual([0, 2]);
    const expected = {
      quantities: [
        { timestamp: '2026-11-20T00:00:00.000-05:00', quantity: 1 },
        { timestamp: '2026-11-21T00:00:00.000-05:00', quantity: 1 },
      ],
      total: 2,
    };
    const local = await quantities(merchant, meterId, `${range}&timezone=America/New_York`);
    expect(local.status, local.text).toBe(200);
    expect(local.json).toEqual(expected);
    // An alias is the same zone.
    expect((await quantities(merchant, meterId, `${range}&timezone=US/Eastern`)).json).toEqual(expected);
    expect(
      (await quantities(merchant, meterId, `${range}&timezone=America/New_York&customer_id=${buyer.id}`)).json,
    ).toEqual(expected);
  });

  it('follows daylight saving: a month starts at local midnight whatever the offset', async () => {
    const merchant = await createMerchant(daemon());
    // Paris: 2026-03-01 00:00 is 02-28T23:00Z (UTC+1); 2026-04-01 00:00 is 03-31T22:00Z (UTC+2 after March 29).
    const { buyer, meterId } = await calls(merchant, [
      '2026-02-28T22:30:00Z',
      '2026-02-28T23:30:00Z',
      '2026-03-31T21:30:00Z',
      '2026-03-31T22:30:00Z',
    ]);
    const range =
      'start_timestamp=2026-02-15T00:00:00Z&end_timestamp=2026-04-15T00:00:00Z&interval=month&timezone=Europe/Paris';
    const expected = {
      quantities: [
        { timestamp: '2026-02-01T00:00:00.000+01:00', quantity: 1 },
        { timestamp: '2026-03-01T00:00:00.000+01:00', quantity: 2 },
        { timestamp: '2026-04-01T00:00:00.000+02:00', quantity: 1 },
      ],
      total: 4,
    };
    expect((await quantities(merchant, meterId, range)).json).toEqual(expected);
    expect((await quantities(merchant, meterId, `${range}&customer_id=${buyer.id}`)).json).toEqual(expected);
    const hours = await quantities(
      merchant,
      meterId,
      'start_timestamp=2026-03-29T00:30:00Z&end_timestamp=2026-03-29T02:00:00Z&interval=hour&timezone=Europe/Paris',
    );
    expect(hours.json.quantities.map((point: { timestamp: string }) => point.timestamp)).toEqual([
      '2026-03-29T01:00:00.000+01:00',
      '2026-03-29T03:00:00.000+02:00',
      '2026-03-29T04:00:00.000+02:00',
    ]);
  });

  it('answers zones off the whole hour for given customers only, and refuses unknown zones', async () => {
    const merchant = await createMerchant(daemon());
    // 00:15 on the 21st in Kolkata (UTC+5:30).
    const { buyer, meterId } = await calls(merchant, ['2026-11-20T18:45:00Z']);
    const range =
      'start_timestamp=2026-11-20T00:00:00Z&end_timestamp=2026-11-21T06:00:00Z&interval=day&timezone=Asia/Kolkata';
    const some = await quantities(merchant, meterId, `${range}&customer_id=${buyer.id}`);
    expect(some.status, some.text).toBe(200);
    expect(some.json.quantities).toEqual([
      { timestamp: '2026-11-20T00:00:00.000+05:30', quantity: 0 },
      { timestamp: '2026-11-21T00:00:00.000+05:30', quantity: 1 },
    ]);
    const all = await quantities(merchant, meterId, range);
    expect(all.status, all.text).toBe(422);
    expect(all.json.detail[0].loc).toEqual(['query', 'timezone']);

    const unknown = await quantities(merchant, meterId, `${DAY}&timezone=Mars/Olympus_Mons`);
    expect(unknown.status).toBe(422);
    expect(unknown.json.detail[0].loc).toEqual(['query', 'timezone']);
    expect((await quantities(merchant, meterId, `${DAY}&timezone=Etc/UTC`)).status).toBe(200);
  });
});
