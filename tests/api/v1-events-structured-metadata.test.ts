import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { createCustomer, createMerchant, type Merchant } from '../helpers/v1.js';

/**
 * Polar's structured metadata (`_llm`, `_cost`): accepted as EventMetadataInput defines them, given back as
 * EventMetadataOutput (`_cost.amount` a decimal string), and read by meters through a dotted property, at ingestion,
 * in a backfill and in the SQL that lists a meter's events.
 */

const daemon = useTestDaemon();

const llm = (model: string, total: number) => ({
  vendor: 'openai',
  model,
  prompt: null,
  input_tokens: total - 1,
  output_tokens: 1,
  total_tokens: total,
});

async function ingest(merchant: Merchant, events: object[]) {
  return merchant.api.post('/v1/events/ingest', { events });
}

async function meter(merchant: Merchant, name: string, body: object): Promise<string> {
  const created = await merchant.api.post('/v1/meters/', { name, ...body });
  expect(created.status, created.text).toBe(201);
  return created.json.id as string;
}

const byModel = (model: string) => ({
  conjunction: 'and',
  clauses: [{ property: '_llm.model', operator: 'eq', value: model }],
});

describe('structured event metadata', () => {
  it('meters _llm and _cost fields by dotted property, live and by backfill, and lists their events', async () => {
    const merchant = await createMerchant(daemon());
    const buyer = await createCustomer(merchant);
    const tokens = await meter(merchant, 'GPT-5 tokens', {
      filter: byModel('gpt-5'),
      aggregation: { func: 'sum', property: '_llm.total_tokens' },
    });
    const models = await meter(merchant, 'Models', {
      filter: { conjunction: 'and', clauses: [] },
      aggregation: { func: 'unique', property: 'metadata._llm.model' },
    });
    const response = await ingest(merchant, [
      {
        name: 'chat',
        customer_id: buyer.id,
        metadata: { _llm: llm('gpt-5', 100), _cost: { amount: 12.5, currency: 'usd' } },
      },
      {
        name: 'chat',
        customer_id: buyer.id,
        metadata: { _llm: llm('gpt-5', 50), _cost: { amount: '0.25', currency: 'usd' } },
      },
      {
        name: 'chat',
        customer_id: buyer.id,
        metadata: { _llm: llm('gpt-5-mini', 7), _cost: { amount: '1', currency: 'usd' } },
      },
      // A flat key with a dot is its own key, as before: it is not `_llm`'s field.
      { name: 'chat', customer_id: buyer.id, metadata: { '_llm.total_tokens': 1000, 'gpt.tokens': 3 } },
    ]);
    expect(response.status, response.text).toBe(200);
    // Created after the events: counted by the backfill from the stored metadata.
    const cost = await meter(merchant, 'Cost', {
      filter: { conjunction: 'and', clauses: [{ property: '_cost.amount', operator: 'gte', value: 1 }] },
      aggregation: { func: 'sum', property: '_cost.amount' },
    });
    const dotted = await meter(merchant, 'Dotted key', {
      filter: { conjunction: 'and', clauses: [] },
      aggregation: { func: 'sum', property: 'gpt.tokens' },
    });
    await daemon().core.scheduler.drain();

    const meters = await merchant.api.get(`/v1/customer-meters/?customer_id=${buyer.id}&limit=10`);
    expect(meters.status, meters.text).toBe(200);
    const consumed = Object.fromEntries(
      meters.json.items.map((item: { meter_id: string; consumed_units: number }) => [
        item.meter_id,
        item.consumed_units,
      ]),
    );
    expect(consumed).toEqual({ [tokens]: 150, [models]: 2, [cost]: 13.5, [dotted]: 3 });

    // The list by meter runs the same filter as SQL.
    const listed = await merchant.api.get(`/v1/events/?meter_id=${tokens}&sorting=timestamp`);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json.items).toHaveLength(2);
    const costly = await merchant.api.get(`/v1/events/?meter_id=${cost}`);
    expect(costly.json.items).toHaveLength(2);
    const amounts = costly.json.items.map((item: { metadata: { _cost: { amount: string } } }) => item.metadata._cost);
    expect(amounts).toEqual(
      expect.arrayContaining([
        { amount: '12.5', currency: 'usd' },
        { amount: '1', currency: 'usd' },
      ]),
    );
    const all = await merchant.api.get(`/v1/events/?customer_id=${buyer.id}`);
    expect(all.json.items.map((item: { metadata: { _cost?: unknown } }) => item.metadata._cost)).toContainEqual({
      amount: '0.25',
      currency: 'usd',
    });
    const first = costly.json.items.find(
      (item: { metadata: { _llm: { total_tokens: number } } }) => item.metadata._llm.total_tokens === 100,
    );
    expect(first.metadata._llm).toEqual(llm('gpt-5', 100));

    const quantities = await merchant.api.get(
      `/v1/meters/${tokens}/quantities?start_timestamp=2020-01-01T00:00:00Z&end_timestamp=2030-01-01T00:00:00Z&interval=year&customer_id=${buyer.id}`,
    );
    expect(quantities.json.total).toBe(150);
  });

  it('refuses structured metadata that breaks its schema, naming the field, and stores nothing of the batch', async () => {
    const merchant = await createMerchant(daemon());
    const buyer = await createCustomer(merchant);
    const ok = { name: 'chat', customer_id: buyer.id, metadata: { _llm: llm('gpt-5', 3) } };
    const { total_tokens: _omitted, ...withoutTotal } = llm('gpt-5', 3);
    const response = await ingest(merchant, [
      ok,
      { ...ok, metadata: { _llm: withoutTotal } },
      { ...ok, metadata: { _llm: { ...llm('gpt-5', 3), input_tokens: 1.5 } } },
      { ...ok, metadata: { _cost: { amount: '123456', currency: 'usd' } } },
      { ...ok, metadata: { _cost: { amount: 1, currency: 'eur' } } },
      { ...ok, metadata: { _cost: 'free' } },
    ]);
    expect(response.status, response.text).toBe(422);
    const locs = response.json.detail.map((issue: { loc: unknown[] }) => issue.loc);
    expect(locs).toEqual(
      expect.arrayContaining([
        ['body', 'events', 1, 'metadata', '_llm', 'total_tokens'],
        ['body', 'events', 2, 'metadata', '_llm', 'input_tokens'],
        ['body', 'events', 3, 'metadata', '_cost', 'amount'],
        ['body', 'events', 4, 'metadata', '_cost', 'currency'],
      ]),
    );
    expect(new Set(locs.map((loc: unknown[]) => loc[2]))).toEqual(new Set([1, 2, 3, 4, 5]));
    const stored = await daemon()
      .core.db('events')
      .where({ organization_id: merchant.organization.id })
      .count({ n: '*' });
    expect(Number(stored[0]!.n)).toBe(0);
  });
});
