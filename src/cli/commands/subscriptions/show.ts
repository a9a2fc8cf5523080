import type { SubscriptionWire } from '../../../core/subscriptions/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { money } from '../../money.js';
import { printFields, printJson } from '../../output.js';

export function printSubscription(subscription: SubscriptionWire): void {
  printFields([
    ['id', subscription.id],
    ['status', subscription.status],
    ['product', `${subscription.product.name} (${subscription.product_id})`],
    ['customer', `${subscription.customer.email ?? ''} (${subscription.customer_id})`],
    [
      'amount',
      `${money(subscription.amount, subscription.currency)} every ${subscription.recurring_interval_count} ${subscription.recurring_interval}`,
    ],
    ['current period', `${subscription.current_period_start} – ${subscription.current_period_end}`],
    ['cancel at end', subscription.cancel_at_period_end ? 'yes' : 'no'],
    ['canceled', subscription.canceled_at ?? ''],
    ['ends', subscription.ends_at ?? ''],
    ['ended', subscription.ended_at ?? ''],
    [
      'reason',
      [subscription.customer_cancellation_reason, subscription.customer_cancellation_comment]
        .filter(Boolean)
        .join(': '),
    ],
    ['started', subscription.started_at ?? ''],
  ]);
}

export async function run({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const subscription = await call<SubscriptionWire>(
    signedIn(globals),
    'GET',
    `/v1/subscriptions/${encodeURIComponent(String(args[0]))}`,
  );
  if (opts.json) printJson(subscription);
  else printSubscription(subscription);
}
