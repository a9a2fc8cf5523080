import type { SubscriptionWire } from '../../../core/subscriptions/schemas.js';
import { SUBSCRIPTION_STATUSES } from '../../../core/subscriptions/types.js';
import type { Invocation } from '../../action.js';
import { orgFilter, signedIn } from '../../context.js';
import { choiceFlag } from '../../flags.js';
import { money } from '../../money.js';
import { printJson, printTable } from '../../output.js';
import { fetchAll } from '../../pages.js';

interface Options {
  customer?: string;
  product?: string;
  status?: string;
  active?: boolean;
  org?: string;
  json?: boolean;
}

export function subscriptionRow(subscription: SubscriptionWire): string[] {
  const state = subscription.cancel_at_period_end
    ? `${subscription.status} (ends ${subscription.ends_at})`
    : subscription.status;
  return [
    subscription.id,
    state,
    subscription.product.name,
    `${money(subscription.amount, subscription.currency)}/${subscription.recurring_interval}`,
    subscription.customer.email ?? subscription.customer_id,
    subscription.current_period_end,
  ];
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  const target = signedIn(globals);
  const query = new URLSearchParams();
  if (opts.customer) query.set('customer_id', opts.customer);
  if (opts.product) query.set('product_id', opts.product);
  if (opts.status !== undefined) query.set('status', choiceFlag('--status', opts.status, SUBSCRIPTION_STATUSES));
  if (opts.active) query.set('active', 'true');
  await orgFilter(target, query, opts);
  const subscriptions = await fetchAll<SubscriptionWire>(target, '/v1/subscriptions/', query);
  if (opts.json) printJson(subscriptions);
  else printTable(['ID', 'STATUS', 'PRODUCT', 'AMOUNT', 'CUSTOMER', 'PERIOD END'], subscriptions.map(subscriptionRow));
}
