import type { Merchant } from './v1.js';

/** A product through the API: one fixed price unless `prices` says otherwise. */
export async function createProduct(
  merchant: Merchant,
  fields: {
    name?: string;
    recurring_interval?: 'month' | 'year' | null;
    prices?: unknown[];
    attached_custom_fields?: unknown[];
  } = {},
) {
  const response = await merchant.api.post('/v1/products/', {
    name: fields.name ?? 'Pro plan',
    recurring_interval: fields.recurring_interval ?? null,
    prices: fields.prices ?? [{ amount_type: 'fixed', price_amount: 1000, price_currency: 'usd' }],
    ...(fields.attached_custom_fields ? { attached_custom_fields: fields.attached_custom_fields } : {}),
  });
  if (response.status !== 201) throw new Error(`product create failed: ${response.status} ${response.text}`);
  return response.json as { id: string; prices: Array<{ id: string; amount_type: string }> };
}

export async function createDiscount(merchant: Merchant, fields: Record<string, unknown>) {
  const response = await merchant.api.post('/v1/discounts/', {
    name: 'Launch',
    duration: 'once',
    type: 'percentage',
    basis_points: 1000,
    ...fields,
  });
  if (response.status !== 201) throw new Error(`discount create failed: ${response.status} ${response.text}`);
  return response.json as { id: string; code: string | null; redemptions_count: number };
}

export async function createCheckout(merchant: Merchant, productIds: string[], fields: Record<string, unknown> = {}) {
  const response = await merchant.api.post('/v1/checkouts/', { products: productIds, ...fields });
  if (response.status !== 201) throw new Error(`checkout create failed: ${response.status} ${response.text}`);
  return response.json as { id: string; client_secret: string; url: string; total_amount: number; status: string };
}
