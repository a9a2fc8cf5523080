import type { TestDaemon } from '../helpers/daemon.js';
import { createCheckout, createDiscount, createProduct } from '../helpers/catalog.js';
import { uploadFile } from '../helpers/files.js';
import { uniqueEmail } from '../helpers/http.js';
import { paidOrder } from '../helpers/purchases.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';

/** One of each /v1 resource, so the fuzzed paths and bodies can name real ids as well as bogus ones. */
export interface Seeded {
  merchant: Merchant;
  customerSessionToken: string;
  /** Real ids by path prefix (longest prefix wins) and by body field name. */
  byPath: Array<[prefix: string, param: string, value: string]>;
  byField: Record<string, string>;
}

async function created(merchant: Merchant, path: string, body: Record<string, unknown>): Promise<any> {
  const response = await merchant.api.post(path, body);
  if (response.status !== 201) throw new Error(`seeding ${path} failed: ${response.status} ${response.text}`);
  return response.json;
}

export async function seedV1(daemon: TestDaemon): Promise<Seeded> {
  const merchant = await createMerchant(daemon, { name: 'Fuzz Merchant' });
  const organizationId = merchant.organization.id;
  const product = await createProduct(merchant, { name: 'Fuzz product' });
  const { order, subscriptionId, customerId, customerSessionToken, checkout } = await paidOrder(
    daemon,
    merchant,
    2000,
    'month',
  );
  const openCheckout = await createCheckout(merchant, [product.id]);
  const refund = await created(merchant, '/v1/refunds/', {
    order_id: order.id,
    reason: 'customer_request',
    amount: 100,
  });
  // A second token: the fuzz may delete the one its path names, and must keep its own.
  const token = await created(merchant, '/v1/organization-access-tokens/', {
    organization_id: organizationId,
    comment: 'fuzz target',
    scopes: ['products:read'],
  });
  const file = await uploadFile(merchant.api);
  const benefit = await created(merchant, '/v1/benefits/', {
    type: 'custom',
    description: 'Fuzz benefit',
    properties: { note: 'note' },
  });
  const field = await created(merchant, '/v1/custom-fields/', {
    type: 'text',
    slug: 'fuzz',
    name: 'Fuzz',
    properties: {},
  });
  const discount = await createDiscount(merchant, { code: 'FUZZ10' });
  const link = await created(merchant, '/v1/checkout-links/', { payment_processor: 'stripe', products: [product.id] });
  const taxRate = await created(merchant, '/v1/tax-rates/', { country: 'DE', basis_points: 1900, name: 'MwSt' });
  const externalId = `fuzz-${Math.random().toString(36).slice(2, 10)}`;
  const customer = await created(merchant, '/v1/customers/', { email: uniqueEmail('fuzz'), external_id: externalId });
  const endpoint = await created(merchant, '/v1/webhooks/endpoints', {
    url: 'http://127.0.0.1:9/hook',
    format: 'raw',
    events: ['order.created'],
  });
  const event = (await daemon.core.db('webhook_events').first('id')) as { id: string } | undefined;

  const byPath: Seeded['byPath'] = [
    ['/v1/organizations/', 'id', organizationId],
    ['/v1/organization-access-tokens/', 'id', token.organization_access_token?.id ?? token.id],
    ['/v1/files/', 'id', file.id],
    ['/v1/benefits/', 'id', benefit.id],
    ['/v1/custom-fields/', 'id', field.id],
    ['/v1/products/', 'id', product.id],
    ['/v1/discounts/', 'id', discount.id],
    ['/v1/checkout-links/', 'id', link.id],
    ['/v1/checkout-links/', 'client_secret', link.client_secret],
    ['/v1/tax-rates/', 'id', taxRate.id],
    ['/v1/checkouts/', 'id', openCheckout.id],
    ['/v1/checkouts/client/', 'client_secret', openCheckout.client_secret],
    ['/v1/customers/', 'id', customer.id],
    ['/v1/customers/external/', 'external_id', externalId],
    ['/v1/orders/', 'id', order.id],
    ['/v1/subscriptions/', 'id', subscriptionId ?? order.id],
    ['/v1/customer-portal/orders/', 'id', order.id],
    ['/v1/customer-portal/subscriptions/', 'id', subscriptionId ?? order.id],
    ['/v1/webhooks/endpoints/', 'id', endpoint.id],
    ['/v1/webhooks/events/', 'id', event?.id ?? refund.id],
  ];
  const byField: Record<string, string> = {
    organization_id: organizationId,
    product_id: product.id,
    product_price_id: product.prices[0]!.id,
    customer_id: customerId,
    external_customer_id: externalId,
    order_id: order.id,
    subscription_id: subscriptionId ?? order.id,
    checkout_id: checkout.id,
    discount_id: discount.id,
    discount_code: 'FUZZ10',
    benefit_id: benefit.id,
    custom_field_id: field.id,
    endpoint_id: endpoint.id,
    file_id: file.id,
    id: file.id,
  };
  return { merchant, customerSessionToken, byPath, byField };
}
