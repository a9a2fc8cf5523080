import { describe, expect, it } from 'vitest';
import { SDKValidationError } from '@polar-sh/sdk/models/errors/sdkvalidationerror.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import { createMerchant } from '../helpers/v1.js';

const daemon = useTestDaemon();

async function all<T>(pages: AsyncIterable<{ result: { items: T[] } }>): Promise<T[]> {
  const items: T[] = [];
  for await (const page of pages) items.push(...page.result.items);
  return items;
}

describe('@polar-sh/sdk 0.47: event names, event type filters and updates, the events tree', () => {
  it('lists names, filters and relabels types and reads events by depth, strictly parsed', async () => {
    const merchant = await createMerchant(daemon());
    const sdk = merchant.sdk;
    const buyer = await sdk.customers.create({ email: uniqueEmail('sdk-names'), externalId: 'ext-names' });
    const other = await sdk.customers.create({ email: uniqueEmail('sdk-names') });
    const ingested = await sdk.events.ingest({
      events: [
        { name: 'run', customerId: buyer.id, externalId: 'run-1', timestamp: new Date('2026-11-01T10:01:00Z') },
        {
          name: 'step',
          customerId: buyer.id,
          externalId: 'step-1',
          parentId: 'run-1',
          timestamp: new Date('2026-11-01T10:02:00Z'),
        },
        { name: 'tool', customerId: buyer.id, parentId: 'step-1', timestamp: new Date('2026-11-01T10:03:00Z') },
        { name: 'run', customerId: other.id, timestamp: new Date('2026-11-01T10:04:00Z') },
        { name: 'ping', externalCustomerId: 'ext-names', timestamp: new Date('2026-11-01T10:05:00Z') },
      ],
    });
    expect(ingested).toEqual({ inserted: 5, duplicates: 0 });

    const names = await all(await sdk.events.listNames({ sorting: ['name'] }));
    expect(names.map((name) => [name.name, name.occurrences])).toEqual([
      ['ping', 1],
      ['run', 2],
      ['step', 1],
      ['tool', 1],
    ]);
    expect(names[1]).toEqual({
      name: 'run',
      source: 'user',
      occurrences: 2,
      firstSeen: new Date('2026-11-01T10:01:00Z'),
      lastSeen: new Date('2026-11-01T10:04:00Z'),
    });
    const buyers = await all(
      await sdk.events.listNames({ customerId: buyer.id, source: 'user', query: 'p', sorting: ['-occurrences'] }),
    );
    expect(buyers.map((name) => name.name).sort()).toEqual(['ping', 'step']);
    const paged = await all(await sdk.events.listNames({ externalCustomerId: ['ext-names'], limit: 1 }));
    // The buyer's events carry its external id, and the ping sent under it before: all four names.
    expect(paged.map((name) => name.name)).toEqual(['ping', 'tool', 'step', 'run']);

    const types = await all(await sdk.eventTypes.list({ customerId: buyer.id, sorting: ['name'] }));
    expect(types.map((type) => [type.name, type.occurrences])).toEqual([
      ['ping', 1],
      ['run', 1],
      ['step', 1],
      ['tool', 1],
    ]);
    const roots = await all(await sdk.eventTypes.list({ rootEvents: true, sorting: ['name'] }));
    expect(roots.map((type) => [type.name, type.occurrences])).toEqual([
      ['ping', 1],
      ['run', 2],
    ]);
    const runs = await sdk.events.list({ name: 'run', customerId: buyer.id });
    const run = runs.items[0]!;
    const children = await all(await sdk.eventTypes.list({ parentId: run.id, externalCustomerId: 'ext-names' }));
    expect(children.map((type) => type.name)).toEqual(['step']);

    const runType = roots.find((type) => type.name === 'run')!;
    const updated = await sdk.eventTypes.update({
      id: runType.id,
      eventTypeUpdate: { label: 'Agent run', labelPropertySelector: 'metadata.subject' },
    });
    expect(updated).toMatchObject({
      id: runType.id,
      name: 'run',
      label: 'Agent run',
      labelPropertySelector: 'metadata.subject',
      organizationId: merchant.organization.id,
    });
    expect(updated.modifiedAt).toBeInstanceOf(Date);
    await sdk.events.ingest({ events: [{ name: 'run', customerId: other.id }] });
    const relabelled = await all(await sdk.eventTypes.list({ query: 'run' }));
    expect(relabelled).toEqual([expect.objectContaining({ label: 'Agent run', occurrences: 3 })]);

    const tree = await sdk.events.list({ parentId: run.id, depth: 1, sorting: ['timestamp'] });
    expect(tree.items.map((event) => event.name)).toEqual(['step']);
    const rootEvents = await sdk.events.list({ depth: 0, sorting: ['timestamp'], limit: 100 });
    expect(rootEvents.items.map((event) => event.name)).toEqual(['run', 'run', 'ping', 'run']);

    // A bad filter is a 422 the SDK reads as Polar's validation error, not a parse failure.
    const refused = await sdk.events.list({ depth: 9 }).catch((error: unknown) => error);
    expect(refused).not.toBeInstanceOf(SDKValidationError);
    expect((refused as { statusCode?: number }).statusCode).toBe(422);
  });
});
