import { describe, expect, it } from 'vitest';
import { meterResetsRepository } from '../../src/core/meters/resets-repository.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { bearerClient, createMerchant, type Merchant } from '../helpers/v1.js';
import { uniqueEmail } from '../helpers/http.js';

/**
 * Sorting customer meters by every field of Polar's CustomerMeterSortProperty (and the portal's
 * CustomerCustomerMeterSortProperty): the order is the one the listed figures imply (a customer meter's `c:` and
 * `x:` rows added up, as the wire shows them), text by code point, a missing customer name last ascending and first
 * descending, ties by the customer meter's id, and pages that follow on without overlap, on both databases.
 */

const daemon = useTestDaemon();

interface Item {
  id: string;
  created_at: string;
  modified_at: string;
  customer_id: string;
  meter_id: string;
  consumed_units: number;
  credited_units: number;
  balance: number;
  customer?: { name: string | null };
  meter: { name: string };
}

const MERCHANT_FIELDS = [
  'created_at',
  'modified_at',
  'customer_id',
  'customer_name',
  'meter_id',
  'meter_name',
  'consumed_units',
  'credited_units',
  'balance',
] as const;

function keyOf(item: Item, field: string): string | number | null {
  switch (field) {
    case 'created_at':
    case 'modified_at':
      return Date.parse(item[field]);
    case 'customer_name':
      return item.customer!.name;
    case 'meter_name':
      return item.meter.name;
    default:
      return item[field as 'customer_id' | 'meter_id' | 'consumed_units' | 'credited_units' | 'balance'];
  }
}

/** The oracle: criteria in order, then the tie-break (the merchant list by id, the portal by meter id). */
function sortedBy(items: Item[], sorting: string[], tie: (item: Item) => string): Item[] {
  return [...items].sort((a, b) => {
    for (const criterion of sorting) {
      const descending = criterion.startsWith('-');
      const field = descending ? criterion.slice(1) : criterion;
      const [x, y] = [keyOf(a, field), keyOf(b, field)];
      if (x === y) continue;
      // null is the largest: last ascending, first descending.
      const order = x === null ? 1 : y === null ? -1 : x < y ? -1 : 1;
      return descending ? -order : order;
    }
    return tie(a) < tie(b) ? -1 : tie(a) > tie(b) ? 1 : 0;
  });
}

async function ingest(merchant: Merchant, events: object[]): Promise<void> {
  const response = await merchant.api.post('/v1/events/ingest', { events });
  expect(response.status, response.text).toBe(200);
}

async function customer(merchant: Merchant, name: string | null, externalId?: string): Promise<string> {
  const response = await merchant.api.post('/v1/customers/', {
    email: uniqueEmail('sorted'),
    ...(name === null ? {} : { name }),
    ...(externalId ? { external_id: externalId } : {}),
  });
  expect(response.status, response.text).toBe(201);
  return response.json.id as string;
}

async function listAll(merchant: Merchant, path: string, sorting: string[], client = merchant.api): Promise<Item[]> {
  const items: Item[] = [];
  for (let page = 1; ; page++) {
    const query = [...sorting.map((field) => `sorting=${field}`), 'limit=3', `page=${page}`].join('&');
    const response = await client.get(`${path}?${query}`);
    expect(response.status, response.text).toBe(200);
    items.push(...(response.json.items as Item[]));
    if (page >= response.json.pagination.max_page) return items;
  }
}

/** Four meters, four customers (one without a name, one whose first events came by external id before they existed). */
async function setUp() {
  const merchant = await createMerchant(daemon());
  const filter = { conjunction: 'and', clauses: [{ property: 'name', operator: 'eq', value: 'call' }] };
  const meters: string[] = [];
  for (const [name, aggregation] of [
    ['tokens', { func: 'sum', property: 'tokens' }],
    ['Calls', { func: 'count' }],
    ['Peak', { func: 'max', property: 'tokens' }],
    ['average', { func: 'avg', property: 'tokens' }],
    ['Regions', { func: 'unique', property: 'region' }],
  ] as const) {
    const created = await merchant.api.post('/v1/meters/', { name, filter, aggregation });
    expect(created.status, created.text).toBe(201);
    meters.push(created.json.id as string);
  }
  const call = (who: object, tokens: number, region: string) => ({
    name: 'call',
    ...who,
    metadata: { tokens, region },
  });
  // Before the customer exists: an `x:` row, added to their `c:` row once they do.
  await ingest(merchant, [
    call({ external_customer_id: 'late' }, 50, 'eu'),
    call({ external_customer_id: 'late' }, 5, 'us'),
  ]);
  const late = await customer(merchant, 'alice', 'late');
  const bob = await customer(merchant, 'Bob');
  const nameless = await customer(merchant, null);
  const carol = await customer(merchant, 'carol');
  await ingest(merchant, [
    call({ customer_id: late }, 1, 'eu'),
    call({ customer_id: bob }, 30, 'eu'),
    call({ customer_id: bob }, 30, 'ap'),
    call({ customer_id: nameless }, 7, 'us'),
    call({ customer_id: carol }, 30, 'eu'),
    call({ customer_id: carol }, 30, 'eu'),
  ]);
  const resets = meterResetsRepository(daemon().core.db);
  const organizationId = merchant.organization.id as string;
  await resets.credit(meters[0]!, { id: bob, organizationId, externalId: null }, 100, new Date());
  await resets.credit(meters[1]!, { id: nameless, organizationId, externalId: null }, 3, new Date());
  return { merchant, customers: { late, bob, nameless, carol }, meters };
}

describe('customer meters: sorting', () => {
  it('sorts by every CustomerMeterSortProperty, both ways, alone and combined', async () => {
    const { merchant } = await setUp();
    const items = await listAll(merchant, '/v1/customer-meters/', ['customer_id']);
    expect(items).toHaveLength(20);
    const late = items.find((item) => item.customer!.name === 'alice' && item.meter.name === 'tokens')!;
    expect(late.consumed_units).toBe(56);
    const peak = items.find((item) => item.customer!.name === 'alice' && item.meter.name === 'Peak')!;
    expect(peak.consumed_units).toBe(50);
    const criteria = [
      ...MERCHANT_FIELDS.flatMap((field) => [[field], [`-${field}`]]),
      ['meter_name', '-consumed_units'],
      ['-customer_name', 'balance'],
      ['credited_units', '-meter_id'],
    ];
    for (const sorting of criteria) {
      const listed = await listAll(merchant, '/v1/customer-meters/', sorting);
      const expected = sortedBy(listed, sorting, (item) => item.id);
      expect(
        listed.map((item) => item.id),
        sorting.join(','),
      ).toEqual(expected.map((item) => item.id));
      expect(new Set(listed.map((item) => item.id)).size).toBe(20);
    }
    // Spot checks the oracle shares with the figures: text by code point, a missing name last, the largest balance.
    const byName = await listAll(merchant, '/v1/customer-meters/', ['customer_name']);
    expect([...new Set(byName.map((item) => item.customer!.name))]).toEqual(['Bob', 'alice', 'carol', null]);
    const byBalance = await listAll(merchant, '/v1/customer-meters/', ['-balance']);
    expect(byBalance[0]).toMatchObject({ credited_units: 100, consumed_units: 60, balance: 40 });
    const refused = await merchant.api.get('/v1/customer-meters/?sorting=-customer_email');
    expect(refused.status).toBe(422);
  });

  it("sorts the portal's meters by every CustomerCustomerMeterSortProperty", async () => {
    const { merchant, customers } = await setUp();
    const session = await merchant.api.post('/v1/customer-sessions/', { customer_id: customers.late });
    expect(session.status, session.text).toBe(201);
    const portal = bearerClient(daemon(), session.json.token as string);
    const fields = MERCHANT_FIELDS.filter((field) => field !== 'customer_id' && field !== 'customer_name');
    for (const sorting of [...fields.flatMap((field) => [[field], [`-${field}`]]), ['-balance', 'meter_name']]) {
      const listed = await listAll(merchant, '/v1/customer-portal/meters/', sorting, portal);
      expect(listed).toHaveLength(5);
      const expected = sortedBy(listed, sorting, (item) => item.meter_id);
      expect(
        listed.map((item) => item.id),
        sorting.join(','),
      ).toEqual(expected.map((item) => item.id));
    }
    const byName = await listAll(merchant, '/v1/customer-portal/meters/', ['meter_name'], portal);
    expect(byName.map((item) => item.meter.name)).toEqual(['Calls', 'Peak', 'Regions', 'average', 'tokens']);
    const byConsumed = await listAll(merchant, '/v1/customer-portal/meters/', ['-consumed_units'], portal);
    expect(byConsumed.map((item) => item.consumed_units)).toEqual([56, 50, 18.666666666666668, 3, 2]);
    expect((await portal.get('/v1/customer-portal/meters/?sorting=customer_name')).status).toBe(422);
  });
});
