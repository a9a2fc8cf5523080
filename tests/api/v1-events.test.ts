import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { createOrganization } from '../helpers/organizations.js';
import { createCustomer, createMerchant, type Merchant } from '../helpers/v1.js';

const daemon = useTestDaemon();

async function ingest(merchant: Merchant, events: unknown[]) {
  return merchant.api.post('/v1/events/ingest', { events });
}

async function storedEvents(organizationId: string): Promise<number> {
  const row = await daemon().core.db('events').where({ organization_id: organizationId }).count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

const tokensMeter = {
  name: 'LLM tokens',
  filter: { conjunction: 'and', clauses: [{ property: 'name', operator: 'eq', value: 'llm' }] },
  aggregation: { func: 'sum', property: 'tokens' },
};

describe('POST /v1/events/ingest', () => {
  it('stores a batch once, however often it is sent, counting duplicates by external_id', async () => {
    const merchant = await createMerchant(daemon());
    const buyer = await createCustomer(merchant);
    const events = Array.from({ length: 20 }, (_, i) => ({
      name: 'llm',
      customer_id: buyer.id,
      external_id: `evt-${i}`,
      metadata: { tokens: i },
    }));
    const first = await ingest(merchant, events);
    expect(first.status, first.text).toBe(200);
    expect(first.json).toEqual({ inserted: 20, duplicates: 0 });
    const parallel = await Promise.all(Array.from({ length: 5 }, () => ingest(merchant, events)));
    for (const response of parallel) expect(response.json).toEqual({ inserted: 0, duplicates: 20 });
    const withinBatch = await ingest(merchant, [
      { name: 'llm', customer_id: buyer.id, external_id: 'same' },
      { name: 'llm', customer_id: buyer.id, external_id: 'same' },
    ]);
    expect(withinBatch.json).toEqual({ inserted: 1, duplicates: 1 });
    expect(await storedEvents(merchant.organization.id)).toBe(21);
  });

  it('answers batches sent at once each on its own: an external id is stored once, a bad batch is refused alone', async () => {
    const merchant = await createMerchant(daemon());
    const meter = (await merchant.api.post('/v1/meters/', tokensMeter)).json;
    const buyer = await createCustomer(merchant);
    // Five clients at once, each sending 10 events of which 5 share external ids with the next client's batch.
    const batches = Array.from({ length: 5 }, (_, client) =>
      Array.from({ length: 10 }, (_, i) => ({
        name: 'llm',
        customer_id: buyer.id,
        external_id: `shared-${client * 5 + i}`,
        metadata: { tokens: 1 },
      })),
    );
    const bad = [
      { name: 'llm', customer_id: buyer.id, external_id: 'shared-0', metadata: { tokens: 1000 } },
      { name: 'llm', customer_id: '6a3c7f1e-2b4d-4e8f-9a1b-2c3d4e5f6a7b', metadata: { tokens: 1000 } },
    ];
    const answers = await Promise.all(
      [...batches.slice(0, 2), bad, ...batches.slice(2)].map((b) => ingest(merchant, b)),
    );
    const refused = answers[2]!;
    expect(refused.status).toBe(422);
    expect(refused.json.detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual([
      ['body', 'events', 1, 'customer_id'],
    ]);
    const accepted = answers.filter((_, i) => i !== 2);
    for (const answer of accepted) {
      expect(answer.status, answer.text).toBe(200);
      expect(answer.json.inserted + answer.json.duplicates).toBe(10);
    }
    // 30 distinct external ids over 50 events: each stored and counted once, whoever won it.
    expect(accepted.reduce((sum, answer) => sum + answer.json.inserted, 0)).toBe(30);
    expect(accepted.reduce((sum, answer) => sum + answer.json.duplicates, 0)).toBe(20);
    expect(await storedEvents(merchant.organization.id)).toBe(30);
    const list = await merchant.api.get(`/v1/customer-meters/?customer_id=${buyer.id}&meter_id=${meter.id}`);
    expect(list.json.items[0]).toMatchObject({ consumed_units: 30 });
  });

  it('answers batches naming the same external ids in opposite orders, sent at once', async () => {
    const merchant = await createMerchant(daemon());
    const buyer = await createCustomer(merchant);
    const rounds = 10;
    for (let round = 0; round < rounds; round++) {
      const events = Array.from({ length: 20 }, (_, i) => ({
        name: 'llm',
        customer_id: buyer.id,
        external_id: `round-${round}-${i}`,
        metadata: { tokens: 1 },
      }));
      // On PostgreSQL each waits for an id the other has just inserted: a deadlock, which must not reach the client.
      const answers = await Promise.all([ingest(merchant, events), ingest(merchant, [...events].reverse())]);
      for (const answer of answers) expect(answer.status, answer.text).toBe(200);
      expect(answers[0]!.json.inserted + answers[1]!.json.inserted).toBe(20);
      expect(answers[0]!.json.duplicates + answers[1]!.json.duplicates).toBe(20);
    }
    expect(await storedEvents(merchant.organization.id)).toBe(20 * rounds);
  });

  it('refuses a call naming several organizations whole when one part fails, and writes every part when none does', async () => {
    const merchant = await createMerchant(daemon());
    const other = await createOrganization(merchant.owner.client, { name: 'Second shop' });
    const buyer = await createCustomer(merchant);
    const mine = { name: 'llm', organization_id: merchant.organization.id, customer_id: buyer.id };
    // The customer is the first organization's: the second has no such customer.
    const refused = await merchant.session.post('/v1/events/ingest', {
      events: [mine, { ...mine, organization_id: other.id }, mine],
    });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.json.detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual([
      ['body', 'events', 1, 'customer_id'],
    ]);
    expect(await storedEvents(merchant.organization.id)).toBe(0);
    expect(await storedEvents(other.id)).toBe(0);

    const both = await merchant.session.post('/v1/events/ingest', {
      events: [mine, { name: 'llm', organization_id: other.id, external_customer_id: 'later-customer' }],
    });
    expect(both.status, both.text).toBe(200);
    expect(both.json).toEqual({ inserted: 2, duplicates: 0 });
    expect(await storedEvents(merchant.organization.id)).toBe(1);
    expect(await storedEvents(other.id)).toBe(1);
  });

  it('refuses bad batches whole, naming every failing index, and stores nothing', async () => {
    const merchant = await createMerchant(daemon());
    const buyer = await createCustomer(merchant);
    const ok = { name: 'llm', customer_id: buyer.id };
    const tooMany = await ingest(
      merchant,
      Array.from({ length: 1001 }, () => ok),
    );
    expect(tooMany.status).toBe(422);
    expect(tooMany.json.detail[0].loc).toEqual(['body', 'events']);

    const unknown = await ingest(merchant, [
      ok,
      { name: 'llm', customer_id: '6a3c7f1e-2b4d-4e8f-9a1b-2c3d4e5f6a7b' },
      ok,
    ]);
    expect(unknown.status).toBe(422);
    expect(unknown.json.detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual([
      ['body', 'events', 1, 'customer_id'],
    ]);

    const tooManyKeys = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
    const metadata = await ingest(merchant, [
      ok,
      { ...ok, metadata: tooManyKeys },
      { ...ok, metadata: { ['k'.repeat(41)]: 1 } },
      { ...ok, metadata: { note: 'x'.repeat(501) } },
      { ...ok, metadata: { nested: { a: 1 } } },
      { ...ok, metadata: { note: '' } },
    ]);
    expect(metadata.status).toBe(422);
    const indexes = new Set(metadata.json.detail.map((issue: { loc: unknown[] }) => issue.loc[2]));
    expect([...indexes].sort()).toEqual([1, 2, 3, 4, 5]);

    const future = await ingest(merchant, [ok, { ...ok, timestamp: '2099-01-01T00:00:00Z' }]);
    expect(future.status).toBe(422);
    expect(future.json.detail[0].loc).toEqual(['body', 'events', 1, 'timestamp']);

    const neither = await ingest(merchant, [{ name: 'llm' }]);
    expect(neither.status).toBe(422);
    expect(neither.json.detail[0].loc).toEqual(['body', 'events', 0, 'customer_id']);

    expect(await storedEvents(merchant.organization.id)).toBe(0);
  });

  it('keeps events for an external id no customer has yet, and counts them once the customer exists', async () => {
    const merchant = await createMerchant(daemon());
    const meter = (await merchant.api.post('/v1/meters/', tokensMeter)).json;
    const early = await ingest(merchant, [
      { name: 'llm', external_customer_id: 'user-7', metadata: { tokens: 5 } },
      { name: 'llm', external_customer_id: 'user-7', metadata: { tokens: 7 } },
    ]);
    expect(early.json).toEqual({ inserted: 2, duplicates: 0 });
    const buyer = await createCustomer(merchant, 'user-7');
    await ingest(merchant, [{ name: 'llm', external_customer_id: 'user-7', metadata: { tokens: 100 } }]);
    await ingest(merchant, [{ name: 'llm', customer_id: buyer.id, metadata: { tokens: 1000 } }]);
    const list = await merchant.api.get(`/v1/customer-meters/?customer_id=${buyer.id}`);
    expect(list.status, list.text).toBe(200);
    expect(list.json.items).toHaveLength(1);
    expect(list.json.items[0]).toMatchObject({
      customer_id: buyer.id,
      meter_id: meter.id,
      consumed_units: 1112,
      credited_units: 0,
      balance: -1112,
    });
    const state = await merchant.api.get(`/v1/customers/${buyer.id}/state`);
    expect(state.json.active_meters).toEqual([
      expect.objectContaining({ meter_id: meter.id, consumed_units: 1112, balance: -1112 }),
    ]);
    const events = await merchant.api.get(`/v1/events/?customer_id=${buyer.id}`);
    expect(events.json.pagination.total_count).toBe(4);
    expect(events.json.items.every((event: { customer: { id: string } }) => event.customer.id === buyer.id)).toBe(true);
  });
});

describe('GET /v1/events', () => {
  it('lists in timestamp order across minutes, both ways and by page, and within a time range', async () => {
    const merchant = await createMerchant(daemon());
    const buyer = await createCustomer(merchant);
    const start = Date.parse('2026-11-20T10:00:00Z');
    // Offsets sent out of order, across three minutes, one of them twice (the later one written second).
    const offsets = [59_999, 60_000, 1, 120_500, 60_000, 30_000];
    const sent = await ingest(
      merchant,
      offsets.map((offset, n) => ({
        name: 'call',
        customer_id: buyer.id,
        timestamp: new Date(start + offset).toISOString(),
        metadata: { n },
      })),
    );
    expect(sent.json).toEqual({ inserted: 6, duplicates: 0 });
    const listed = async (query: string) => {
      const { json } = await merchant.api.get(`/v1/events/?name=call&${query}`);
      return {
        ns: json.items.map((event: { metadata: { n: number } }) => event.metadata.n),
        total: json.pagination.total_count,
      };
    };
    expect(await listed('sorting=-timestamp')).toEqual({ ns: [3, 4, 1, 0, 5, 2], total: 6 });
    expect(await listed('sorting=timestamp')).toEqual({ ns: [2, 5, 0, 1, 4, 3], total: 6 });
    expect(await listed('sorting=-timestamp&limit=2&page=2')).toEqual({ ns: [1, 0], total: 6 });
    const range = `start_timestamp=${new Date(start + 30_000).toISOString()}&end_timestamp=${new Date(start + 60_000).toISOString()}`;
    expect(await listed(`sorting=-timestamp&${range}`)).toEqual({ ns: [4, 1, 0, 5], total: 4 });
  });
});

describe('parent events', () => {
  it('links an event to a parent named by id or external id, stored or earlier in its batch, and refuses unknown ones', async () => {
    const merchant = await createMerchant(daemon());
    const buyer = await createCustomer(merchant);
    const first = await ingest(merchant, [
      { name: 'run', customer_id: buyer.id, external_id: 'run-1' },
      { name: 'step', customer_id: buyer.id, parent_id: 'run-1' },
    ]);
    expect(first.json).toEqual({ inserted: 2, duplicates: 0 });
    const run = (await merchant.api.get('/v1/events/?name=run')).json.items[0];
    const second = await ingest(merchant, [
      { name: 'step', customer_id: buyer.id, parent_id: run.id },
      { name: 'step', customer_id: buyer.id, parent_id: 'run-1' },
    ]);
    expect(second.json).toEqual({ inserted: 2, duplicates: 0 });
    const children = await merchant.api.get(`/v1/events/?parent_id=${run.id}`);
    expect(children.json.items.map((event: { parent_id: string }) => event.parent_id)).toEqual([
      run.id,
      run.id,
      run.id,
    ]);
    const refused = await ingest(merchant, [
      { name: 'step', customer_id: buyer.id },
      { name: 'step', customer_id: buyer.id, parent_id: 'no-such-run' },
    ]);
    expect(refused.status).toBe(422);
    expect(refused.json.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'events', 1, 'parent_id'], msg: 'Parent event not found.' }),
    ]);
    expect(await storedEvents(merchant.organization.id)).toBe(4);
  });
});

describe('meter totals held in memory (SQLite)', () => {
  it('are written before an organization goes, so the next write of what others hold does not fail', async () => {
    const [gone, kept] = [await createMerchant(daemon()), await createMerchant(daemon())];
    const setUp = [];
    for (const merchant of [gone, kept]) {
      const meter = (await merchant.api.post('/v1/meters/', tokensMeter)).json as { id: string };
      setUp.push({ merchant, meter, buyer: await createCustomer(merchant) });
    }
    // After both customers exist (creating one reads customer state, which writes what is held).
    for (const { merchant, buyer } of setUp) {
      const answer = await ingest(merchant, [{ name: 'llm', customer_id: buyer.id, metadata: { tokens: 3 } }]);
      expect(answer.status, answer.text).toBe(200);
    }
    const deleted = await gone.owner.client.post('/api/auth/organization/delete', {
      organizationId: gone.organization.id,
    });
    expect(deleted.status, deleted.text).toBe(200);
    const { meter, buyer } = setUp[1]!;
    const list = await kept.api.get(`/v1/customer-meters/?customer_id=${buyer.id}&meter_id=${meter.id}`);
    expect(list.status, list.text).toBe(200);
    expect(list.json.items[0]).toMatchObject({ consumed_units: 3 });
    const rows = await daemon().core.db('meter_totals').where({ organization_id: gone.organization.id });
    expect(rows).toHaveLength(0);
  });
});

describe('meters', () => {
  it('refuses a filter nested 50 deep and stores no meter', async () => {
    const merchant = await createMerchant(daemon());
    let filter: Record<string, unknown> = {
      conjunction: 'and',
      clauses: [{ property: 'a', operator: 'eq', value: 1 }],
    };
    for (let i = 0; i < 49; i++) filter = { conjunction: i % 2 ? 'and' : 'or', clauses: [filter] };
    const response = await merchant.api.post('/v1/meters/', { ...tokensMeter, filter });
    expect(response.status).toBe(422);
    expect(response.json.detail[0].msg).toMatch(/nested deeper than/);
    const nested = (levels: number) => {
      let node: Record<string, unknown> = {
        conjunction: 'and',
        clauses: [{ property: 'a', operator: 'eq', value: 1 }],
      };
      for (let i = 1; i < levels; i++) node = { conjunction: 'and', clauses: [node] };
      return node;
    };
    const deep = await merchant.api.post('/v1/meters/', { ...tokensMeter, filter: nested(11) });
    expect(deep.status).toBe(422);
    expect(deep.json.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'filter'], msg: 'A filter may nest at most 10 levels deep.' }),
    ]);
    const rows = await daemon().core.db('meters').where({ organization_id: merchant.organization.id });
    expect(rows).toHaveLength(0);
    const deepest = await merchant.api.post('/v1/meters/', { ...tokensMeter, filter: nested(10) });
    expect(deepest.status, deepest.text).toBe(201);
  });

  it('counts events that existed before the meter in the background, saying so until done', async () => {
    const merchant = await createMerchant(daemon());
    const buyer = await createCustomer(merchant);
    await ingest(merchant, [
      { name: 'llm', customer_id: buyer.id, metadata: { tokens: 3, model: 'a' } },
      { name: 'llm', customer_id: buyer.id, metadata: { tokens: 4, model: 'b' } },
      { name: 'other', customer_id: buyer.id, metadata: { tokens: 100 } },
    ]);
    const created = await merchant.api.post('/v1/meters/', {
      name: 'Models',
      filter: tokensMeter.filter,
      aggregation: { func: 'unique', property: 'model' },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json.backfill_pending).toBe(true);
    await ingest(merchant, [{ name: 'llm', customer_id: buyer.id, metadata: { tokens: 1, model: 'c' } }]);
    await daemon().core.scheduler.drain();
    const meter = await merchant.api.get(`/v1/meters/${created.json.id}`);
    expect(meter.json.backfill_pending).toBe(false);
    const list = await merchant.api.get(`/v1/customer-meters/?meter_id=${created.json.id}`);
    expect(list.json.items[0].consumed_units).toBe(3);

    const changed = await merchant.api.call('PATCH', `/v1/meters/${created.json.id}`, {
      body: { aggregation: { func: 'max', property: 'tokens' } },
    });
    expect(changed.json.backfill_pending).toBe(true);
    await daemon().core.scheduler.drain();
    const after = await merchant.api.get(`/v1/customer-meters/${list.json.items[0].id}`);
    expect(after.json.consumed_units).toBe(4);
  });

  it('draws quantities per hour and per day, for everyone and per customer', async () => {
    const merchant = await createMerchant(daemon());
    const [a, b] = [await createCustomer(merchant), await createCustomer(merchant)];
    const meter = (await merchant.api.post('/v1/meters/', tokensMeter)).json;
    await ingest(merchant, [
      { name: 'llm', customer_id: a.id, timestamp: '2026-11-20T10:15:00Z', metadata: { tokens: 1 } },
      { name: 'llm', customer_id: b.id, timestamp: '2026-11-20T10:45:00Z', metadata: { tokens: 2 } },
      { name: 'llm', customer_id: a.id, timestamp: '2026-11-21T09:00:00Z', metadata: { tokens: 4 } },
    ]);
    const daily = await merchant.api.get(
      `/v1/meters/${meter.id}/quantities?start_timestamp=2026-11-19T00:00:00Z&end_timestamp=2026-11-21T12:00:00Z&interval=day`,
    );
    expect(daily.status, daily.text).toBe(200);
    expect(daily.json).toEqual({
      quantities: [
        { timestamp: '2026-11-19T00:00:00.000Z', quantity: 0 },
        { timestamp: '2026-11-20T00:00:00.000Z', quantity: 3 },
        { timestamp: '2026-11-21T00:00:00.000Z', quantity: 4 },
      ],
      total: 7,
    });
    const perCustomer = await merchant.api.get(
      `/v1/meters/${meter.id}/quantities?start_timestamp=2026-11-20T10:00:00Z&end_timestamp=2026-11-20T11:00:00Z&interval=hour&customer_id=${a.id}`,
    );
    expect(perCustomer.json.quantities).toEqual([
      { timestamp: '2026-11-20T10:00:00.000Z', quantity: 1 },
      { timestamp: '2026-11-20T11:00:00.000Z', quantity: 0 },
    ]);
    const filtered = await merchant.api.get(`/v1/events/?meter_id=${meter.id}`);
    expect(filtered.json.pagination.total_count).toBe(3);
    const byFilter = await merchant.api.get(
      `/v1/events/?filter=${encodeURIComponent(JSON.stringify({ conjunction: 'and', clauses: [{ property: 'tokens', operator: 'gte', value: 2 }] }))}`,
    );
    expect(byFilter.json.items.map((event: { metadata: { tokens: number } }) => event.metadata.tokens)).toEqual([4, 2]);
    const types = await merchant.api.get('/v1/event-types/');
    expect(types.json.items).toEqual([expect.objectContaining({ name: 'llm', occurrences: 3, source: 'user' })]);
  });
});
