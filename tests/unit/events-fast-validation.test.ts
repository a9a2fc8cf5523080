import { describe, expect, it } from 'vitest';
import { eventsIngestSchema, fastEventsIngest } from '../../src/core/events/schemas.js';

const CUSTOMER = '6a3c7f1e-2b4d-4e8f-9a1b-2c3d4e5f6a7b';
const valid = {
  name: 'api.call',
  customer_id: CUSTOMER,
  timestamp: '2026-11-27T05:00:00.123Z',
  external_id: 'evt-1',
  metadata: { latency_ms: 12, region: 'eu', cached: false },
};

// One change each to a valid event: every field at and beyond its limits, wrong types, unknown keys.
const variants: Array<Record<string, unknown>> = [
  {},
  { customer_id: undefined, external_customer_id: 'user-1' },
  { external_customer_id: 'user-1' },
  { customer_id: undefined },
  { customer_id: CUSTOMER.toUpperCase() },
  { customer_id: '6a3c7f1e-2b4d-0e8f-9a1b-2c3d4e5f6a7b' },
  { customer_id: '6a3c7f1e-2b4d-4e8f-7a1b-2c3d4e5f6a7b' },
  { customer_id: null },
  { customer_id: 'not-a-uuid' },
  { member_id: null },
  { member_id: CUSTOMER },
  { member_id: 'x' },
  { name: '' },
  { name: 'n'.repeat(128) },
  { name: 'n'.repeat(129) },
  { name: 5 },
  { name: undefined },
  { timestamp: undefined },
  { timestamp: '2026-11-27T05:00:00Z' },
  { timestamp: '2026-11-27T05:00:00+02:00' },
  { timestamp: '2026-02-30T05:00:00Z' },
  { timestamp: '2026-11-27 05:00:00Z' },
  { timestamp: '2026-11-27T05:00:00' },
  { timestamp: 1764219600000 },
  { organization_id: null },
  { organization_id: 'o'.repeat(64) },
  { organization_id: 'o'.repeat(65) },
  { organization_id: '' },
  { external_id: null },
  { external_id: 'e'.repeat(256) },
  { external_id: 'e'.repeat(257) },
  { external_id: '' },
  { parent_id: 'p'.repeat(256) },
  { parent_id: 3 },
  { external_customer_id: 'u'.repeat(257), customer_id: undefined },
  { external_customer_id: null, customer_id: undefined },
  { external_member_id: null },
  { external_member_id: '' },
  { extra: 1 },
  { metadata: undefined },
  { metadata: null },
  { metadata: [] },
  { metadata: { ['k'.repeat(40)]: 1 } },
  { metadata: { ['k'.repeat(41)]: 1 } },
  { metadata: { '': 1 } },
  { metadata: { note: '' } },
  { metadata: { note: 'x'.repeat(500) } },
  { metadata: { note: 'x'.repeat(501) } },
  { metadata: { nested: { a: 1 } } },
  { metadata: { list: [1] } },
  { metadata: { nothing: null } },
  { metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i])) },
  { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) },
  { metadata: JSON.parse('{"__proto__": 1}') },
  // Polar's structured keys: `_cost` (an amount in cents, a number or a decimal string, in usd) and `_llm`.
  { metadata: { _cost: { amount: 12.5, currency: 'usd' }, region: 'eu' } },
  { metadata: { _cost: { amount: '-0.000000000001', currency: 'usd' } } },
  { metadata: { _cost: { amount: '99999.5', currency: 'usd' } } },
  { metadata: { _cost: { amount: '123456', currency: 'usd' } } },
  { metadata: { _cost: { amount: 100000, currency: 'usd' } } },
  { metadata: { _cost: { amount: '1.0000000000001', currency: 'usd' } } },
  { metadata: { _cost: { amount: '+.', currency: 'usd' } } },
  { metadata: { _cost: { amount: 1, currency: 'eur' } } },
  { metadata: { _cost: { amount: 1 } } },
  { metadata: { _cost: { amount: true, currency: 'usd' } } },
  { metadata: { _cost: 5 } },
  { metadata: { _cost: { amount: 1, currency: 'usd', note: 'dropped' } } },
  { metadata: { _llm: { vendor: 'openai', model: 'gpt-5', input_tokens: 10, output_tokens: 5, total_tokens: 15 } } },
  {
    metadata: {
      _llm: {
        vendor: 'openai',
        model: 'gpt-5',
        prompt: null,
        response: 'Hi',
        input_tokens: 10,
        cached_input_tokens: 4,
        output_tokens: 5,
        total_tokens: 15,
      },
    },
  },
  { metadata: { _llm: { vendor: 'openai', model: 'gpt-5', input_tokens: 10, output_tokens: 5 } } },
  { metadata: { _llm: { vendor: 'openai', model: 'gpt-5', input_tokens: 1.5, output_tokens: 5, total_tokens: 6 } } },
  { metadata: { _llm: { vendor: 7, model: 'gpt-5', input_tokens: 1, output_tokens: 5, total_tokens: 6 } } },
  { metadata: { _llm: 'gpt-5' } },
  { metadata: { _other: { a: 1 } } },
];

describe('the hand-written check of an ingestion body', () => {
  it('accepts exactly what the schema accepts, and returns what the schema returns', () => {
    const slow: string[] = [];
    for (const change of variants) {
      const event: Record<string, unknown> = { ...valid, ...change };
      for (const key of Object.keys(change)) if (change[key] === undefined) delete event[key];
      for (const body of [{ events: [event] }, { events: [valid, event, valid] }]) {
        const schema = eventsIngestSchema.safeParse(JSON.parse(JSON.stringify(body)));
        const fast = fastEventsIngest(JSON.parse(JSON.stringify(body)));
        if (fast === null) {
          // The schema decides, and names the errors; a valid body it would take the fast way.
          if (schema.success) slow.push(JSON.stringify(change));
          continue;
        }
        expect(schema.success, JSON.stringify(change)).toBe(true);
        expect(fast).toEqual(schema.data);
      }
    }
    // Left to the schema on purpose (alone and among valid events): a `__proto__` metadata key, and a structured
    // key's field the schema drops.
    const proto = JSON.stringify({ metadata: JSON.parse('{"__proto__": 1}') });
    const dropped = JSON.stringify({ metadata: { _cost: { amount: 1, currency: 'usd', note: 'dropped' } } });
    expect(slow).toEqual([proto, proto, dropped, dropped]);
  });

  it('leaves bodies of the wrong shape to the schema', () => {
    const events = Array.from({ length: 1001 }, () => valid);
    for (const body of [null, [], 'x', { events }, { events: {} }, { events: [], more: 1 }, { events: [null] }])
      expect(fastEventsIngest(body)).toBeNull();
    expect(fastEventsIngest({ events: [] })).toEqual({ events: [] });
  });
});
