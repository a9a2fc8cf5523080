import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import type { HttpResponse } from '../helpers/http.js';
import { createCustomer, createMerchant, type Merchant } from '../helpers/v1.js';

const daemon = useTestDaemon();

const at = (minute: number) => `2026-11-01T10:${String(minute).padStart(2, '0')}:00.000Z`;

interface Seeded {
  merchant: Merchant;
  buyer: { id: string };
  other: { id: string };
  /** Event ids by external id. */
  ids: Record<string, string>;
}

/**
 * One merchant's events: a tree under the buyer's `run-1` (run → step → tool → call), a root `run` and `ping` of
 * another customer, and a `ping` still pending under an external id no customer has.
 */
async function seed(): Promise<Seeded> {
  const merchant = await createMerchant(daemon());
  const buyer = await createCustomer(merchant, 'ext-buyer');
  const other = await createCustomer(merchant);
  const ingested = await merchant.api.post('/v1/events/ingest', {
    events: [
      { name: 'run', customer_id: buyer.id, external_id: 'run-1', timestamp: at(1) },
      { name: 'step', customer_id: buyer.id, external_id: 'step-1', parent_id: 'run-1', timestamp: at(2) },
      { name: 'tool', customer_id: buyer.id, external_id: 'tool-1', parent_id: 'step-1', timestamp: at(3) },
      { name: 'call', customer_id: buyer.id, external_id: 'call-1', parent_id: 'tool-1', timestamp: at(4) },
      { name: 'run', customer_id: other.id, external_id: 'run-2', timestamp: at(5) },
      { name: 'ping', external_customer_id: 'pending-x', external_id: 'ping-1', timestamp: at(6) },
      { name: 'ping', customer_id: other.id, external_id: 'ping-2', timestamp: at(7) },
    ],
  });
  expect(ingested.json).toEqual({ inserted: 7, duplicates: 0 });
  const listed = await merchant.api.get('/v1/events/?limit=100');
  const ids: Record<string, string> = {};
  const rows = (await daemon().core.db('events').where({ organization_id: merchant.organization.id })) as Array<{
    id: string;
    external_id: string;
  }>;
  for (const row of rows) ids[row.external_id] = row.id;
  expect(listed.json.items).toHaveLength(7);
  return { merchant, buyer, other, ids };
}

type Named = { name: string; occurrences: number; first_seen: string; last_seen: string };

const counts = (response: HttpResponse) =>
  (response.json.items as Named[]).map((item) => [item.name, item.occurrences]);

const patch = (who: Merchant, path: string, body: unknown) => who.api.call('PATCH', path, { body });

function expectValidation(response: HttpResponse, loc: Array<string | number>): void {
  expect(response.status, response.text).toBe(422);
  expect(response.json.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc })]));
}

describe('GET /v1/events/names', () => {
  it('lists the organization’s names with their counts from the event types, sorted as asked', async () => {
    const { merchant } = await seed();
    const all = await merchant.api.get('/v1/events/names');
    expect(all.status, all.text).toBe(200);
    // Polar's default sort: the most recently seen first.
    expect(counts(all)).toEqual([
      ['ping', 2],
      ['run', 2],
      ['call', 1],
      ['tool', 1],
      ['step', 1],
    ]);
    expect(all.json.items[1]).toEqual({
      name: 'run',
      label: 'run',
      source: 'user',
      occurrences: 2,
      first_seen: at(1),
      last_seen: at(5),
    });
    expect(all.json.pagination).toEqual({ total_count: 5, max_page: 1 });

    const byName = await merchant.api.get('/v1/events/names?sorting=name');
    expect(counts(byName).map(([name]) => name)).toEqual(['call', 'ping', 'run', 'step', 'tool']);
    const byCount = await merchant.api.get('/v1/events/names?sorting=-occurrences&sorting=name');
    expect(counts(byCount).map(([name]) => name)).toEqual(['ping', 'run', 'call', 'step', 'tool']);
    const byFirst = await merchant.api.get('/v1/events/names?sorting=first_seen');
    expect(counts(byFirst).map(([name]) => name)).toEqual(['run', 'step', 'tool', 'call', 'ping']);
    const byLast = await merchant.api.get('/v1/events/names?sorting=last_seen');
    expect(counts(byLast).map(([name]) => name)).toEqual(['step', 'tool', 'call', 'run', 'ping']);

    const page = await merchant.api.get('/v1/events/names?sorting=name&limit=2&page=2');
    expect(counts(page).map(([name]) => name)).toEqual(['run', 'step']);
    expect(page.json.pagination).toEqual({ total_count: 5, max_page: 3 });

    expect(counts(await merchant.api.get('/v1/events/names?query=RU'))).toEqual([['run', 2]]);
    expect(counts(await merchant.api.get('/v1/events/names?source=system'))).toEqual([]);
    expect(counts(await merchant.api.get('/v1/events/names?source=user&source=system'))).toHaveLength(5);
    expect(counts(await merchant.api.get(`/v1/events/names?organization_id=${merchant.organization.id}`))).toHaveLength(
      5,
    );
    expect(counts(await merchant.api.get(`/v1/events/names?organization_id=${randomUUID()}`))).toEqual([]);
  });

  it('counts a customer’s events when filtered by customer or external customer id', async () => {
    const { merchant, buyer, other } = await seed();
    const mine = await merchant.api.get(`/v1/events/names?customer_id=${buyer.id}&sorting=name`);
    expect(mine.status, mine.text).toBe(200);
    expect(counts(mine)).toEqual([
      ['call', 1],
      ['run', 1],
      ['step', 1],
      ['tool', 1],
    ]);
    expect(mine.json.items[1]).toMatchObject({ first_seen: at(1), last_seen: at(1) });
    expect(mine.json.pagination).toEqual({ total_count: 4, max_page: 1 });
    const theirs = await merchant.api.get(`/v1/events/names?customer_id=${other.id}`);
    expect(counts(theirs)).toEqual([
      ['ping', 1],
      ['run', 1],
    ]);
    const both = await merchant.api.get(`/v1/events/names?customer_id=${buyer.id}&customer_id=${other.id}`);
    expect(both.json.pagination.total_count).toBe(5);
    expect(counts(await merchant.api.get('/v1/events/names?external_customer_id=pending-x'))).toEqual([['ping', 1]]);
    expect(
      counts(await merchant.api.get(`/v1/events/names?customer_id=${buyer.id}&query=t&sorting=-name&limit=2`)),
    ).toEqual([
      ['tool', 1],
      ['step', 1],
    ]);
    expect(counts(await merchant.api.get(`/v1/events/names?customer_id=${buyer.id}&source=system`))).toEqual([]);
    expect(counts(await merchant.api.get(`/v1/events/names?customer_id=${randomUUID()}`))).toEqual([]);
    const elsewhere = await merchant.api.get(
      `/v1/events/names?customer_id=${buyer.id}&organization_id=${randomUUID()}`,
    );
    expect(elsewhere.status, elsewhere.text).toBe(200);
    expect(counts(elsewhere)).toEqual([]);

    // Events sent under an external id before its customer existed are that customer's.
    const late = await createCustomer(merchant, 'pending-x');
    expect(counts(await merchant.api.get(`/v1/events/names?customer_id=${late.id}`))).toEqual([['ping', 1]]);
  });

  it('shows only the caller’s organization, with the labels set on its event types', async () => {
    const { merchant } = await seed();
    const stranger = await createMerchant(daemon());
    expect(counts(await stranger.api.get('/v1/events/names'))).toEqual([]);
    expect(counts(await stranger.api.get(`/v1/events/names?organization_id=${merchant.organization.id}`))).toEqual([]);
    const run = (await merchant.api.get('/v1/event-types/?query=run')).json.items[0];
    expect((await patch(merchant, `/v1/event-types/${run.id}`, { label: 'Agent run' })).status).toBe(200);
    const names = await merchant.api.get('/v1/events/names?query=run');
    expect(names.json.items[0]).toMatchObject({ name: 'run', label: 'Agent run' });
  });

  it('answers bad parameters with a 422 at the parameter', async () => {
    const { merchant } = await seed();
    expectValidation(await merchant.api.get('/v1/events/names?sorting=label'), ['query', 'sorting']);
    expectValidation(await merchant.api.get('/v1/events/names?sorting=timestamp'), ['query', 'sorting']);
    expectValidation(await merchant.api.get('/v1/events/names?customer_id=not-a-uuid'), ['query', 'customer_id']);
    expectValidation(await merchant.api.get('/v1/events/names?source=robot'), ['query', 'source']);
    expectValidation(await merchant.api.get('/v1/events/names?limit=0'), ['query', 'limit']);
    expectValidation(await merchant.api.get('/v1/events/names?page=x'), ['query', 'page']);
    expectValidation(await merchant.api.get(`/v1/events/names?query=${'x'.repeat(300)}`), ['query', 'query']);
  });
});

describe('GET /v1/event-types/ filters', () => {
  it('counts the events of a customer, of the roots or of a parent, leaving out types none of them has', async () => {
    const { merchant, buyer, ids } = await seed();
    const all = await merchant.api.get('/v1/event-types/?sorting=name');
    expect(counts(all)).toEqual([
      ['call', 1],
      ['ping', 2],
      ['run', 2],
      ['step', 1],
      ['tool', 1],
    ]);

    const mine = await merchant.api.get(`/v1/event-types/?customer_id=${buyer.id}&sorting=name`);
    expect(mine.status, mine.text).toBe(200);
    expect(counts(mine)).toEqual([
      ['call', 1],
      ['run', 1],
      ['step', 1],
      ['tool', 1],
    ]);
    const run = mine.json.items[1];
    expect(run).toMatchObject({ first_seen: at(1), last_seen: at(1), label: 'run', source: 'user' });
    // The type is the same row whatever the filter: its id, created_at and organization.
    expect(run.id).toBe(all.json.items[2].id);
    expect(run.organization_id).toBe(merchant.organization.id);

    expect(counts(await merchant.api.get('/v1/event-types/?external_customer_id=pending-x'))).toEqual([['ping', 1]]);
    expect(counts(await merchant.api.get('/v1/event-types/?external_customer_id=nobody'))).toEqual([]);

    const roots = await merchant.api.get('/v1/event-types/?root_events=true&sorting=name');
    expect(counts(roots)).toEqual([
      ['ping', 2],
      ['run', 2],
    ]);
    expect(roots.json.pagination).toEqual({ total_count: 2, max_page: 1 });
    expect(counts(await merchant.api.get('/v1/event-types/?root_events=false&sorting=name'))).toEqual(counts(all));
    expect(counts(await merchant.api.get(`/v1/event-types/?root_events=true&customer_id=${buyer.id}`))).toEqual([
      ['run', 1],
    ]);

    expect(counts(await merchant.api.get(`/v1/event-types/?parent_id=${ids['run-1']}`))).toEqual([['step', 1]]);
    expect(counts(await merchant.api.get(`/v1/event-types/?parent_id=${ids['step-1']}`))).toEqual([['tool', 1]]);
    expect(counts(await merchant.api.get(`/v1/event-types/?parent_id=${ids['call-1']}`))).toEqual([]);
    expect(counts(await merchant.api.get(`/v1/event-types/?parent_id=${randomUUID()}`))).toEqual([]);

    // Sorting, paging, query and source apply to the counted types too.
    const sorted = await merchant.api.get(`/v1/event-types/?customer_id=${buyer.id}&sorting=-last_seen&limit=3`);
    expect(counts(sorted).map(([name]) => name)).toEqual(['call', 'tool', 'step']);
    expect(sorted.json.pagination).toEqual({ total_count: 4, max_page: 2 });
    expect(
      counts(await merchant.api.get(`/v1/event-types/?customer_id=${buyer.id}&sorting=-occurrences&sorting=label`)),
    ).toHaveLength(4);
    expect(counts(await merchant.api.get(`/v1/event-types/?customer_id=${buyer.id}&query=TO`))).toEqual([['tool', 1]]);
    expect(counts(await merchant.api.get(`/v1/event-types/?root_events=true&source=system`))).toEqual([]);

    const stranger = await createMerchant(daemon());
    expect(counts(await stranger.api.get(`/v1/event-types/?parent_id=${ids['run-1']}`))).toEqual([]);
    expect(counts(await stranger.api.get(`/v1/event-types/?customer_id=${buyer.id}`))).toEqual([]);
  });

  it('answers bad filters with a 422 at the parameter', async () => {
    const { merchant } = await seed();
    expectValidation(await merchant.api.get('/v1/event-types/?root_events=yes'), ['query', 'root_events']);
    expectValidation(await merchant.api.get('/v1/event-types/?parent_id=run-1'), ['query', 'parent_id']);
    expectValidation(await merchant.api.get('/v1/event-types/?customer_id=x'), ['query', 'customer_id']);
    expectValidation(await merchant.api.get(`/v1/event-types/?external_customer_id=${'x'.repeat(300)}`), [
      'query',
      'external_customer_id',
    ]);
    expectValidation(await merchant.api.get('/v1/event-types/?sorting=timestamp'), ['query', 'sorting']);
  });
});

describe('PATCH /v1/event-types/{id}', () => {
  it('sets the label and its selector, which later ingestion keeps', async () => {
    const { merchant, buyer } = await seed();
    const run = (await merchant.api.get('/v1/event-types/?query=run')).json.items[0];
    expect(run.modified_at).toBeNull();
    const updated = await patch(merchant, `/v1/event-types/${run.id}`, {
      label: 'Agent run',
      label_property_selector: 'metadata.subject',
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json).toEqual({
      id: run.id,
      created_at: run.created_at,
      modified_at: expect.any(String),
      name: 'run',
      label: 'Agent run',
      label_property_selector: 'metadata.subject',
      organization_id: merchant.organization.id,
    });

    const more = await merchant.api.post('/v1/events/ingest', {
      events: [{ name: 'run', customer_id: buyer.id, timestamp: at(9) }],
    });
    expect(more.json).toEqual({ inserted: 1, duplicates: 0 });
    const after = (await merchant.api.get('/v1/event-types/?query=run')).json.items[0];
    expect(after).toMatchObject({
      id: run.id,
      label: 'Agent run',
      label_property_selector: 'metadata.subject',
      occurrences: 3,
      last_seen: at(9),
      modified_at: updated.json.modified_at,
    });

    // Events take their type's label, or the property its selector names where they have it.
    const named = await merchant.api.post('/v1/events/ingest', {
      events: [{ name: 'run', customer_id: buyer.id, timestamp: at(10), metadata: { subject: 'Nightly build' } }],
    });
    expect(named.json).toEqual({ inserted: 1, duplicates: 0 });
    const labelled = await merchant.api.get('/v1/events/?name=run&sorting=-timestamp&limit=2');
    expect(labelled.json.items.map((event: { label: string; name: string }) => [event.name, event.label])).toEqual([
      ['run', 'Nightly build'],
      ['run', 'Agent run'],
    ]);
    expect((await merchant.api.get('/v1/events/?name=step')).json.items[0].label).toBe('step');

    // An omitted selector stays; null clears it.
    const relabelled = await patch(merchant, `/v1/event-types/${run.id}`, { label: 'Run' });
    expect(relabelled.json).toMatchObject({ label: 'Run', label_property_selector: 'metadata.subject' });
    const cleared = await patch(merchant, `/v1/event-types/${run.id}`, {
      label: 'Run',
      label_property_selector: null,
    });
    expect(cleared.json).toMatchObject({ label: 'Run', label_property_selector: null });
    expect((await merchant.api.get('/v1/event-types/?query=run')).json.items[0]).toMatchObject({
      label: 'Run',
      label_property_selector: null,
    });
    expect((await merchant.api.get('/v1/events/?name=run&sorting=-timestamp')).json.items[0].label).toBe('Run');
  });

  it('answers a missing, malformed or foreign id with a 404, bad bodies with a 422, a reader with a 403', async () => {
    const { merchant } = await seed();
    const run = (await merchant.api.get('/v1/event-types/?query=run')).json.items[0];
    for (const id of [randomUUID(), 'not-a-uuid']) {
      const missing = await patch(merchant, `/v1/event-types/${id}`, { label: 'X' });
      expect(missing.status, missing.text).toBe(404);
      expect(missing.json.error).toBe('ResourceNotFound');
    }
    const stranger = await createMerchant(daemon());
    const foreign = await patch(stranger, `/v1/event-types/${run.id}`, { label: 'Mine' });
    expect(foreign.status).toBe(404);
    expect(foreign.json.error).toBe('ResourceNotFound');

    expectValidation(await patch(merchant, `/v1/event-types/${run.id}`, {}), ['body', 'label']);
    expectValidation(await patch(merchant, `/v1/event-types/${run.id}`, { label: '' }), ['body', 'label']);
    expectValidation(await patch(merchant, `/v1/event-types/${run.id}`, { label: 'x'.repeat(129) }), ['body', 'label']);
    expectValidation(await patch(merchant, `/v1/event-types/${run.id}`, { label: 42 }), ['body', 'label']);
    expectValidation(await patch(merchant, `/v1/event-types/${run.id}`, { label: 'X', label_property_selector: '' }), [
      'body',
      'label_property_selector',
    ]);
    expectValidation(
      await patch(merchant, `/v1/event-types/${run.id}`, { label: 'X', label_property_selector: 'x'.repeat(257) }),
      ['body', 'label_property_selector'],
    );

    const reader = await createMerchant(daemon(), { scopes: ['events:read'] });
    const refused = await patch(reader, `/v1/event-types/${randomUUID()}`, { label: 'X' });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toBe('NotPermitted');
    expect((await merchant.api.get('/v1/event-types/?query=run')).json.items[0].label).toBe('run');
  });
});

describe('GET /v1/events/ depth', () => {
  const names = (response: HttpResponse) =>
    (response.json.items as Array<{ name: string; customer_id: string | null }>).map((event) => event.name);

  it('without parent_id: the roots (depth 0), and their descendants down to depth levels', async () => {
    const { merchant, buyer } = await seed();
    const list = (query: string) => merchant.api.get(`/v1/events/?sorting=timestamp&${query}`);
    const roots = await list('depth=0');
    expect(roots.status, roots.text).toBe(200);
    expect(names(roots)).toEqual(['run', 'run', 'ping', 'ping']);
    expect(roots.json.pagination).toEqual({ total_count: 4, max_page: 1 });
    expect(names(await list('depth=1'))).toEqual(['run', 'step', 'run', 'ping', 'ping']);
    expect(names(await list('depth=2'))).toEqual(['run', 'step', 'tool', 'run', 'ping', 'ping']);
    expect(names(await list('depth=3'))).toEqual(['run', 'step', 'tool', 'call', 'run', 'ping', 'ping']);
    expect(names(await list('depth=5'))).toHaveLength(7);
    // Without depth, every event.
    expect(names(await list(''))).toHaveLength(7);
    // With the other filters.
    expect(names(await list(`depth=1&customer_id=${buyer.id}`))).toEqual(['run', 'step']);
    expect(names(await list('depth=0&name=run'))).toEqual(['run', 'run']);
    const page = await list('depth=1&limit=2&page=2');
    expect(names(page)).toEqual(['run', 'ping']);
    expect(page.json.pagination).toEqual({ total_count: 5, max_page: 3 });
  });

  it('with parent_id: its descendants down to depth levels (not the event itself); without depth, its children', async () => {
    const { merchant, ids } = await seed();
    const list = (query: string) => merchant.api.get(`/v1/events/?sorting=timestamp&${query}`);
    expect(names(await list(`parent_id=${ids['run-1']}`))).toEqual(['step']);
    expect(names(await list(`parent_id=${ids['run-1']}&depth=0`))).toEqual([]);
    expect(names(await list(`parent_id=${ids['run-1']}&depth=1`))).toEqual(['step']);
    expect(names(await list(`parent_id=${ids['run-1']}&depth=2`))).toEqual(['step', 'tool']);
    expect(names(await list(`parent_id=${ids['run-1']}&depth=5`))).toEqual(['step', 'tool', 'call']);
    expect(names(await list(`parent_id=${ids['step-1']}&depth=1`))).toEqual(['tool']);
    expect(names(await list(`parent_id=${ids['run-2']}&depth=3`))).toEqual([]);
    expect(names(await list(`parent_id=${randomUUID()}&depth=3`))).toEqual([]);
    const stranger = await createMerchant(daemon());
    expect(names(await stranger.api.get(`/v1/events/?parent_id=${ids['run-1']}&depth=3`))).toEqual([]);
  });

  it('answers a depth outside 0–5 or not a number with a 422', async () => {
    const { merchant } = await seed();
    for (const depth of ['6', '-1', '1.5', 'deep', '1e309'])
      expectValidation(await merchant.api.get(`/v1/events/?depth=${depth}`), ['query', 'depth']);
  });
});
