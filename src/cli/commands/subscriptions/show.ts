import type { OrderWire } from '../../../core/orders/schemas.js';
import type { SubscriptionWire } from '../../../core/subscriptions/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { money } from '../../money.js';
import { printFields, printJson, printLine, printTable } from '../../output.js';
import { fetchAll } from '../../pages.js';

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
    ['trial', subscription.trial_start ? `${subscription.trial_start} – ${subscription.trial_end ?? ''}` : ''],
  ]);
}

/**
 * What happened to the subscription, in time order: its status changes (as its timestamps tell them) and each order
 * it billed (creation, each renewal), with the order's status and the payment it took.
 */
export function timeline(subscription: SubscriptionWire, orders: OrderWire[]): string[][] {
  const rows: string[][] = [];
  const mark = (at: string | null | undefined, what: string, detail = '') => {
    if (at) rows.push([at, what, detail]);
  };
  mark(subscription.started_at, 'started', subscription.status);
  mark(subscription.trial_start, 'trial started', `until ${subscription.trial_end ?? ''}`);
  for (const order of orders) {
    const payment = order.status === 'pending' ? 'not paid yet' : `${order.status}`;
    mark(order.created_at, `order ${order.billing_reason}`, `${money(order.total_amount, order.currency)}, ${payment}`);
  }
  mark(subscription.canceled_at, 'canceled', subscription.ended_at ? '' : `ends ${subscription.ends_at ?? ''}`);
  mark(subscription.ended_at, 'ended', subscription.status);
  rows.push([
    subscription.current_period_start,
    'current period',
    `until ${subscription.current_period_end} (${subscription.status})`,
  ]);
  return rows.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

export async function run({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const target = signedIn(globals);
  const subscription = await call<SubscriptionWire>(
    target,
    'GET',
    `/v1/subscriptions/${encodeURIComponent(String(args[0]))}`,
  );
  const orders = await fetchAll<OrderWire>(
    target,
    '/v1/orders/',
    new URLSearchParams({ subscription_id: subscription.id, sorting: 'created_at' }),
  );
  if (opts.json) {
    printJson({ ...subscription, orders });
    return;
  }
  printSubscription(subscription);
  printLine('');
  printTable(['when', 'what', 'detail'], timeline(subscription, orders));
}
