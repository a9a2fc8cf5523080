/**
 * The ordering key of an event: the customer it is about. Events with the same key reach an endpoint in commit order
 * (each waits for the one before it to succeed or fail for good); events with different keys, or none, go out in
 * parallel. A customer event is about the customer in its `id`; checkouts, orders, subscriptions, refunds, benefit
 * grants, seats and members carry theirs in `customer_id`. Products, discounts, benefits and the organization have none.
 */
export function orderingKeyOf(type: string, payload: string): string | null {
  let data: unknown;
  try {
    data = JSON.parse(payload);
  } catch {
    return null;
  }
  if (typeof data !== 'object' || data === null) return null;
  const record = data as { id?: unknown; customer_id?: unknown };
  const key = type.startsWith('customer.') ? record.id : record.customer_id;
  // The column holds 64 characters; a longer key would not be a customer id of ours.
  return typeof key === 'string' && key.length > 0 && key.length <= 64 ? key : null;
}

/** How many deliveries one endpoint has in flight at once when the endpoint does not say (`max_concurrency`). */
export const DEFAULT_MAX_CONCURRENCY = 32;
/** The most an endpoint may ask for: beyond it the daemon's connections, not the receiver, are the limit. */
export const MAX_CONCURRENCY_LIMIT = 128;
