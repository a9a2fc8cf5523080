import type { TestClient } from './http.js';

// Fixtures for the discount and checkout link suites, taking the caller's client (a token, a member's session…).

/** A one-time product with one fixed price, made through the API as a merchant would. */
export async function createProduct(
  api: TestClient,
  fields: { name?: string; price?: number } = {},
): Promise<{ id: string; organization_id: string; prices: Array<{ id: string }> }> {
  const response = await api.post('/v1/products/', {
    name: fields.name ?? 'Test product',
    prices: [{ amount_type: 'fixed', price_amount: fields.price ?? 1500, price_currency: 'usd' }],
  });
  if (response.status !== 201) throw new Error(`product create failed: ${response.status} ${response.text}`);
  return response.json;
}

export async function archiveProduct(api: TestClient, id: string): Promise<void> {
  const response = await api.call('PATCH', `/v1/products/${id}`, { body: { is_archived: true } });
  if (response.status !== 200) throw new Error(`product archive failed: ${response.status} ${response.text}`);
}

/** A percentage discount with whatever fields a test overrides. */
export async function createDiscount(api: TestClient, fields: Record<string, unknown> = {}): Promise<any> {
  const response = await api.post('/v1/discounts/', {
    name: 'Launch',
    type: 'percentage',
    basis_points: 2500,
    duration: 'once',
    ...fields,
  });
  if (response.status !== 201) throw new Error(`discount create failed: ${response.status} ${response.text}`);
  return response.json;
}
