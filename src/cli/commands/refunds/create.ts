import type { OrderWire } from '../../../core/orders/schemas.js';
import { REFUND_INPUT_REASONS, type RefundWire } from '../../../core/refunds/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { CliError, EXIT, UsageError } from '../../errors.js';
import { money } from '../../money.js';
import { info, printJson } from '../../output.js';
import { confirmYes, requireConfirmable } from '../../prompt.js';

interface Options {
  order: string;
  amount?: string;
  reason: string;
  comment?: string;
  revokeBenefits?: boolean;
  yes?: boolean;
  json?: boolean;
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  if (!(REFUND_INPUT_REASONS as readonly string[]).includes(opts.reason))
    throw new UsageError(`--reason must be one of: ${REFUND_INPUT_REASONS.join(', ')}`);
  if (opts.amount !== undefined && !/^[1-9][0-9]*$/.test(opts.amount))
    throw new UsageError('--amount takes a whole number of minor units greater than 0, e.g. 500 for 5.00');
  requireConfirmable(opts.yes, 'refunding moves money: confirm at a terminal, or pass --yes');
  const target = signedIn(globals);
  const order = await call<OrderWire>(target, 'GET', `/v1/orders/${encodeURIComponent(opts.order)}`);
  const refundable = order.net_amount - order.refunded_amount;
  const amount = opts.amount !== undefined ? Number(opts.amount) : refundable;
  if (amount <= 0) throw new CliError(`order ${order.id} has nothing left to refund`);
  if (!opts.yes) {
    const what = `Refund ${money(amount, order.currency)} (plus its tax) of order ${order.invoice_number} to ${order.customer.email ?? order.customer_id}${opts.revokeBenefits ? ', revoking its benefits' : ''}?`;
    if (!(await confirmYes(what))) throw new CliError('refund cancelled; nothing was refunded', EXIT.usage);
  }
  const body: Record<string, unknown> = {
    order_id: order.id,
    amount,
    reason: opts.reason,
    revoke_benefits: Boolean(opts.revokeBenefits),
  };
  if (opts.comment) body.comment = opts.comment;
  const refund = await call<RefundWire>(target, 'POST', '/v1/refunds/', { body });
  if (opts.json) printJson(refund);
  else
    info(
      `Refunded ${money(refund.amount + refund.tax_amount, refund.currency)} (tax ${money(refund.tax_amount, refund.currency)}) of order ${order.invoice_number}: refund ${refund.id}.`,
    );
}
