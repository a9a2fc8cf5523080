import { expect } from 'vitest';
import { parseJson } from '../../src/core/database/index.js';
import type { TestDaemon } from './daemon.js';
import type { Merchant } from './v1.js';

/** Shared by the /v1/products suites: a product, benefit or custom field made through the API, and the outbox. */

/** A meter no organization has: metered prices refuse it. */
export const METER = '0e9a9c4f-7d0e-4c55-8a2e-6a8f1b3e2d41';

/** A meter of the merchant's, which metered prices count. */
export async function createMeterVia(merchant: Merchant, body: Record<string, unknown> = {}) {
  const response = await merchant.api.post('/v1/meters/', {
    name: 'API calls',
    filter: { conjunction: 'and', clauses: [{ property: 'name', operator: 'eq', value: 'api_call' }] },
    aggregation: { func: 'count' },
    ...body,
  });
  expect(response.status, response.text).toBe(201);
  return response.json as { id: string; name: string };
}

export async function createProductVia(merchant: Merchant, body: Record<string, unknown> = {}) {
  const response = await merchant.api.post('/v1/products/', {
    name: 'E-book',
    prices: [{ amount_type: 'fixed', price_amount: 1500, price_currency: 'usd' }],
    ...body,
  });
  expect(response.status, response.text).toBe(201);
  return response.json;
}

export async function createBenefitVia(merchant: Merchant, description = 'Private Slack') {
  const response = await merchant.api.post('/v1/benefits/', {
    type: 'custom',
    description,
    properties: { note: 'Join at example.com' },
  });
  expect(response.status, response.text).toBe(201);
  return response.json;
}

export async function createCustomFieldVia(merchant: Merchant, slug = 'company') {
  const response = await merchant.api.post('/v1/custom-fields/', {
    type: 'text',
    slug,
    name: 'Company',
    properties: {},
  });
  expect(response.status, response.text).toBe(201);
  return response.json;
}

/** The payloads of an organization's outbox events of one type, oldest first. */
export async function outboxEvents(daemon: TestDaemon, organizationId: string, type: string) {
  const rows = await daemon.core
    .db('outbox_events')
    .where({ organization_id: organizationId, type })
    .orderBy('id', 'asc');
  return rows.map((row: { payload: unknown }) => parseJson<any>(row.payload));
}

/** The `loc` of every issue in a 422. */
export function locs(response: { json: any }) {
  return response.json.detail.map((issue: { loc: unknown }) => issue.loc);
}
