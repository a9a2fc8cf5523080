import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import { createMerchant } from '../helpers/v1.js';

const daemon = useTestDaemon();

describe('@polar-sh/sdk 0.47: structured event metadata', () => {
  it('sends _llm and _cost as the SDK spells them and parses them back (CostMetadata-Output, LLMMetadata)', async () => {
    const merchant = await createMerchant(daemon());
    const sdk = merchant.sdk;
    const customer = await sdk.customers.create({ email: uniqueEmail('sdk-llm') });
    const meter = await sdk.meters.create({
      name: 'LLM cost',
      filter: { conjunction: 'and', clauses: [{ property: '_llm.vendor', operator: 'eq', value: 'anthropic' }] },
      aggregation: { func: 'sum', property: '_cost.amount' },
    });
    const ingested = await sdk.events.ingest({
      events: [
        {
          name: 'completion',
          customerId: customer.id,
          metadata: {
            _llm: {
              vendor: 'anthropic',
              model: 'claude',
              prompt: 'Hello',
              response: 'Hi',
              inputTokens: 12,
              cachedInputTokens: 2,
              outputTokens: 3,
              totalTokens: 15,
            },
            _cost: { amount: '0.0375', currency: 'usd' },
            region: 'eu',
          },
        },
        { name: 'completion', customerId: customer.id, metadata: { _cost: { amount: 2, currency: 'usd' } } },
      ],
    });
    expect(ingested).toEqual({ inserted: 2, duplicates: 0 });

    const listed = await sdk.events.list({ customerId: customer.id, sorting: ['timestamp'] });
    if (!('pagination' in listed)) throw new Error('expected a page');
    const metadata = listed.items.map((event) => event.metadata);
    expect(metadata).toContainEqual({
      _llm: {
        vendor: 'anthropic',
        model: 'claude',
        prompt: 'Hello',
        response: 'Hi',
        inputTokens: 12,
        cachedInputTokens: 2,
        outputTokens: 3,
        totalTokens: 15,
      },
      _cost: { amount: '0.0375', currency: 'usd' },
      region: 'eu',
    });
    expect(metadata).toContainEqual({ _cost: { amount: '2', currency: 'usd' } });

    const meters = await sdk.customerMeters.list({ customerId: customer.id });
    expect(meters.result.items.map((item) => [item.meterId, item.consumedUnits])).toEqual([[meter.id, 0.0375]]);
  });
});
