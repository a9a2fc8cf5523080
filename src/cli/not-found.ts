// Polar's 404 says only "Not found" (its wire, which the daemon keeps); a person at the CLI needs to know what was
// missing. The resource and id are read back from the path the command asked for.

/** /v1 collections by path, as a person names one of their items. */
const RESOURCES: Array<[prefix: string, name: string]> = [
  ['/v1/webhooks/endpoints/', 'webhook endpoint'],
  ['/v1/webhooks/events/', 'webhook event'],
  ['/v1/customers/external/', 'customer with external id'],
  ['/v1/organization-access-tokens/', 'access token'],
  ['/v1/checkouts/client/', 'checkout'],
  ['/v1/checkout-links/', 'checkout link'],
  ['/v1/custom-fields/', 'custom field'],
  ['/v1/customer-sessions/', 'customer session'],
  ['/v1/benefits/', 'benefit'],
  ['/v1/checkouts/', 'checkout'],
  ['/v1/customers/', 'customer'],
  ['/v1/discounts/', 'discount'],
  ['/v1/files/', 'file'],
  ['/v1/orders/', 'order'],
  ['/v1/products/', 'product'],
  ['/v1/refunds/', 'refund'],
  ['/v1/subscriptions/', 'subscription'],
];

/** "order nope not found" for a 404 on `/v1/orders/nope`, or undefined when the path names no single item. */
export function notFoundMessage(path: string): string | undefined {
  const bare = path.split('?')[0]!;
  for (const [prefix, name] of RESOURCES) {
    if (!bare.startsWith(prefix)) continue;
    const id = bare.slice(prefix.length).split('/')[0];
    if (!id) return undefined;
    return `${name} ${decodeURIComponent(id)} not found`;
  }
  return undefined;
}
