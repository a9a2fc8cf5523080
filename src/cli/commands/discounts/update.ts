import type { DiscountWire } from '../../../core/discounts/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { UsageError } from '../../errors.js';
import { info, printJson } from '../../output.js';
import { describeDiscount, discountBody, type DiscountDraft } from './shared.js';

export async function run({ args, opts, globals }: Invocation<DiscountDraft & { json?: boolean }>): Promise<void> {
  const id = String(args[0]);
  const { json, ...draft } = opts;
  const body = discountBody(draft, { partial: true });
  if (Object.keys(body).length === 0)
    throw new UsageError('nothing to change: give at least one of the flags in `till discounts update --help`');
  const updated = await call<DiscountWire>(signedIn(globals), 'PATCH', `/v1/discounts/${encodeURIComponent(id)}`, {
    body,
  });
  if (json) {
    printJson(updated);
    return;
  }
  info(`Updated discount "${updated.name}": ${describeDiscount(updated)}.`);
}
