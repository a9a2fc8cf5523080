import { describe, expect, it } from 'vitest';
import { serializePayloads, type OutboxEvent } from '../../src/core/kernel/outbox.js';
import { nextTurn, sliceTimer } from '../../src/core/kernel/turns.js';

describe('sliceTimer', () => {
  it('answers at once while the slice lasts', () => {
    const pause = sliceTimer(60_000);
    expect(pause()).toBeUndefined();
    expect(pause()).toBeUndefined();
  });

  it('gives the event loop a turn once the slice is used up', async () => {
    const pause = sliceTimer(0);
    const order: string[] = [];
    setImmediate(() => order.push('waiting work'));
    const turn = pause();
    expect(turn).toBeInstanceOf(Promise);
    order.push('loop before the turn');
    await turn;
    order.push('loop after the turn');
    expect(order).toEqual(['loop before the turn', 'waiting work', 'loop after the turn']);
  });
});

describe('serializePayloads', () => {
  const at = new Date('2027-01-01T00:00:00Z');
  const subscription = { id: 'sub_1', status: 'active', amount: 1000 };
  const order = { id: 'order_1', note: 'snow ☃ and "quotes"' };
  const events: OutboxEvent[] = [
    { organizationId: 'org', type: 'subscription.updated', data: subscription, at },
    { organizationId: 'org', type: 'subscription.cycled', data: subscription, at },
    { organizationId: 'org', type: 'order.created', data: order, at },
  ];

  it('serializes each object once, as JSON.stringify does', async () => {
    const payloads = await serializePayloads(events);
    expect(payloads.size).toBe(2);
    expect(payloads.get(subscription)).toBe(JSON.stringify(subscription));
    expect(payloads.get(order)).toBe(JSON.stringify(order));
  });

  it('lets waiting work run between slices of a long batch', async () => {
    const many: OutboxEvent[] = Array.from({ length: 100 }, (_, i) => ({
      organizationId: 'org',
      type: 'order.created',
      data: { id: `order_${i}` },
      at,
    }));
    let ranDuring = false;
    // A slice of no time: a turn after every payload.
    const done = serializePayloads(many, sliceTimer(0));
    // Scheduled after the serialization began: it can only run before the end if the loop gave up a turn.
    await nextTurn();
    setImmediate(() => (ranDuring = true));
    const payloads = await done;
    expect(payloads.size).toBe(100);
    expect(payloads.get(many[99]!.data)).toBe('{"id":"order_99"}');
    expect(ranDuring).toBe(true);
  });
});
