import { Polar } from '@polar-sh/sdk';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import { createMerchant } from '../helpers/v1.js';

const daemon = useTestDaemon();

async function all<T>(pages: AsyncIterable<{ result: { items: T[] } }>): Promise<T[]> {
  const items: T[] = [];
  for await (const page of pages) items.push(...page.result.items);
  return items;
}

describe('@polar-sh/sdk 0.47: events, meters and customer meters', () => {
  it('ingests, lists and reads events, meters, quantities and customer meters, strictly parsed', async () => {
    const merchant = await createMerchant(daemon());
    const sdk = merchant.sdk;
    const customer = await sdk.customers.create({ email: uniqueEmail('sdk'), externalId: 'ext-sdk' });
    const meter = await sdk.meters.create({
      name: 'Tokens',
      filter: {
        conjunction: 'and',
        clauses: [
          { property: 'name', operator: 'eq', value: 'llm' },
          { conjunction: 'or', clauses: [{ property: 'model', operator: 'like', value: 'gpt' }] },
        ],
      },
      aggregation: { func: 'sum', property: 'tokens' },
    });
    expect(meter).toMatchObject({ name: 'Tokens', unit: 'scalar', aggregation: { func: 'sum', property: 'tokens' } });

    const ingested = await sdk.events.ingest({
      events: [
        { name: 'llm', customerId: customer.id, externalId: 'e1', metadata: { tokens: 10, model: 'gpt-5' } },
        { name: 'llm', externalCustomerId: 'ext-sdk', metadata: { tokens: 5, model: 'gpt-5' } },
        {
          name: 'llm',
          customerId: customer.id,
          metadata: { tokens: 99, model: 'other' },
          timestamp: new Date('2026-11-21T11:00:00Z'),
        },
        { name: 'llm', customerId: customer.id, externalId: 'e1', metadata: { tokens: 10, model: 'gpt-5' } },
      ],
    });
    expect(ingested).toEqual({ inserted: 3, duplicates: 1 });

    const listed = await sdk.events.list({ customerId: customer.id });
    if (!('pagination' in listed) || !('totalCount' in listed.pagination)) throw new Error('expected page pagination');
    const events = listed.items;
    expect(events).toHaveLength(3);
    expect(events[0]).toMatchObject({ source: 'user', name: 'llm', customerId: customer.id });
    const one = await sdk.events.get({ id: events[0]!.id });
    expect(one.id).toBe(events[0]!.id);
    const types = await all(await sdk.eventTypes.list({}));
    expect(types.map((type) => [type.name, type.occurrences])).toEqual([['llm', 3]]);

    expect((await sdk.meters.get({ id: meter.id })).id).toBe(meter.id);
    expect((await all(await sdk.meters.list({}))).map((item) => item.id)).toEqual([meter.id]);
    const renamed = await sdk.meters.update({ id: meter.id, meterUpdate: { name: 'GPT tokens' } });
    expect(renamed.name).toBe('GPT tokens');
    const quantities = await sdk.meters.quantities({
      id: meter.id,
      startTimestamp: new Date('2026-11-21T00:00:00Z'),
      endTimestamp: new Date('2026-11-21T23:00:00Z'),
      interval: 'day',
    });
    expect(quantities.total).toBe(15);
    expect(quantities.quantities).toHaveLength(1);
    // Polar's other parameters, as the SDK sends them (metadata in deepObject style): Paris days, per customer.
    const local = await sdk.meters.quantities({
      id: meter.id,
      startTimestamp: new Date('2026-11-21T00:00:00Z'),
      endTimestamp: new Date('2026-11-21T23:00:00Z'),
      interval: 'day',
      timezone: 'Europe/Paris',
      customerId: customer.id,
      customerAggregationFunction: 'sum',
      metadata: { model: 'gpt-5' },
    });
    expect(local.quantities.map((point) => point.timestamp)).toEqual([
      new Date('2026-11-20T23:00:00Z'),
      new Date('2026-11-21T23:00:00Z'),
    ]);
    expect(local.total).toBe(15);

    const customerMeters = await all(
      await sdk.customerMeters.list({ customerId: customer.id, sorting: ['-balance', 'customer_name', 'meter_name'] }),
    );
    expect(customerMeters).toHaveLength(1);
    expect(customerMeters[0]).toMatchObject({ consumedUnits: 15, creditedUnits: 0, balance: -15, meterId: meter.id });
    const fetched = await sdk.customerMeters.get({ id: customerMeters[0]!.id });
    expect(fetched.customer.id).toBe(customer.id);

    const session = await sdk.customerSessions.create({ customerId: customer.id });
    const portal = new Polar({ accessToken: session.token, serverURL: daemon().url });
    const security = { customerSession: session.token };
    const mine = await portal.customerPortal.customerMeters.list(security, {
      sorting: ['-consumed_units', 'meter_name'],
    });
    expect(mine.result.items).toHaveLength(1);
    expect(mine.result.items[0]).toMatchObject({ consumedUnits: 15, meter: { name: 'GPT tokens' } });
    const single = await portal.customerPortal.customerMeters.get(security, { id: mine.result.items[0]!.id });
    expect(single.balance).toBe(-15);

    const archived = await sdk.meters.update({ id: meter.id, meterUpdate: { isArchived: true } });
    expect(archived.archivedAt).toBeInstanceOf(Date);
  });
});
