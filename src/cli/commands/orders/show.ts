import type { OrderWire } from '../../../core/orders/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { money } from '../../money.js';
import { printFields, printJson } from '../../output.js';

export async function run({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const order = await call<OrderWire>(signedIn(globals), 'GET', `/v1/orders/${encodeURIComponent(String(args[0]))}`);
  if (opts.json) {
    printJson(order);
    return;
  }
  const m = (amount: number) => money(amount, order.currency);
  printFields([
    ['id', order.id],
    ['invoice', order.invoice_number],
    ['status', order.status],
    ['billing reason', order.billing_reason],
    ['product', order.product ? `${order.product.name} (${order.product.id})` : ''],
    ['customer', `${order.customer.email ?? ''} (${order.customer_id})`],
    ['subscription', order.subscription_id ?? ''],
    ['subtotal', m(order.subtotal_amount)],
    ['discount', m(order.discount_amount)],
    ['net', m(order.net_amount)],
    ['tax', m(order.tax_amount)],
    ['total', m(order.total_amount)],
    ['refunded', `${m(order.refunded_amount)} (tax ${m(order.refunded_tax_amount)})`],
    ['refundable', m(order.net_amount - order.refunded_amount)],
    ['created', order.created_at],
  ]);
}
