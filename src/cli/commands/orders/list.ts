import type { OrderWire } from '../../../core/orders/schemas.js';
import { ORDER_STATUSES } from '../../../core/orders/types.js';
import type { Invocation } from '../../action.js';
import { orgFilter, signedIn } from '../../context.js';
import { choiceFlag } from '../../flags.js';
import { money } from '../../money.js';
import { printJson, printTable } from '../../output.js';
import { fetchAll } from '../../pages.js';

interface Options {
  customer?: string;
  product?: string;
  subscription?: string;
  status?: string;
  org?: string;
  json?: boolean;
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  const target = signedIn(globals);
  const query = new URLSearchParams();
  if (opts.customer) query.set('customer_id', opts.customer);
  if (opts.product) query.set('product_id', opts.product);
  if (opts.subscription) query.set('subscription_id', opts.subscription);
  if (opts.status !== undefined) query.set('status', choiceFlag('--status', opts.status, ORDER_STATUSES));
  await orgFilter(target, query, opts);
  const orders = await fetchAll<OrderWire>(target, '/v1/orders/', query);
  if (opts.json) {
    printJson(orders);
    return;
  }
  printTable(
    ['ID', 'INVOICE', 'STATUS', 'TOTAL', 'REFUNDED', 'CUSTOMER', 'CREATED'],
    orders.map((order) => [
      order.id,
      order.invoice_number,
      order.status,
      money(order.total_amount, order.currency),
      money(order.refunded_amount, order.currency),
      order.customer.email ?? order.customer_id,
      order.created_at,
    ]),
  );
}
