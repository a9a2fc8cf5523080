import type { RefundWire } from '../../../core/refunds/schemas.js';
import type { Invocation } from '../../action.js';
import { orgFilter, signedIn } from '../../context.js';
import { money } from '../../money.js';
import { printJson, printTable } from '../../output.js';
import { fetchAll } from '../../pages.js';

export async function run({
  opts,
  globals,
}: Invocation<{ order?: string; customer?: string; org?: string; json?: boolean }>): Promise<void> {
  const target = signedIn(globals);
  const query = new URLSearchParams();
  if (opts.order) query.set('order_id', opts.order);
  if (opts.customer) query.set('customer_id', opts.customer);
  await orgFilter(target, query, opts);
  const refunds = await fetchAll<RefundWire>(target, '/v1/refunds/', query);
  if (opts.json) printJson(refunds);
  else
    printTable(
      ['ID', 'STATUS', 'AMOUNT', 'TAX', 'REASON', 'ORDER', 'CREATED'],
      refunds.map((r) => [
        r.id,
        r.status,
        money(r.amount, r.currency),
        money(r.tax_amount, r.currency),
        r.reason,
        r.order_id,
        r.created_at,
      ]),
    );
}
