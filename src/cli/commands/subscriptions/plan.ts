import type { SubscriptionWire } from '../../../core/subscriptions/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { UsageError } from '../../errors.js';
import { money } from '../../money.js';
import { info, printJson } from '../../output.js';

/** `till subscriptions change`, `pause` and `resume`: PATCH /v1/subscriptions/{id} with Polar's update bodies. */

const PRORATIONS = ['invoice', 'prorate', 'next_period'];

interface Options {
  product?: string;
  proration?: string;
  clearPending?: boolean;
  atPeriodEnd?: boolean;
  resumesAt?: string;
  json?: boolean;
}

async function update(
  invocation: Invocation<Options>,
  body: Record<string, unknown>,
  done: (s: SubscriptionWire) => string,
): Promise<void> {
  const subscription = await call<SubscriptionWire>(
    signedIn(invocation.globals),
    'PATCH',
    `/v1/subscriptions/${encodeURIComponent(String(invocation.args[0]))}`,
    { body },
  );
  if (invocation.opts.json) printJson(subscription);
  else info(done(subscription));
}

export function change(invocation: Invocation<Options>): Promise<void> {
  const { product, proration, clearPending } = invocation.opts;
  if (clearPending) {
    if (product) throw new UsageError('--clear-pending takes no --product');
    return update(invocation, { pending_update: null }, (s) => `Subscription ${s.id} has no pending change.`);
  }
  if (!product) throw new UsageError('--product is required (or --clear-pending)');
  if (proration !== undefined && !PRORATIONS.includes(proration))
    throw new UsageError(`--proration must be one of: ${PRORATIONS.join(', ')}`);
  return update(invocation, { product_id: product, ...(proration ? { proration_behavior: proration } : {}) }, (s) =>
    s.pending_update
      ? `Subscription ${s.id} moves to product ${s.pending_update.product_id} on ${s.pending_update.applies_at}.`
      : `Subscription ${s.id} is now on ${s.product.name}: ${money(s.amount, s.currency)} every ${s.recurring_interval_count} ${s.recurring_interval}.`,
  );
}

export function pause(invocation: Invocation<Options>): Promise<void> {
  const { atPeriodEnd, resumesAt } = invocation.opts;
  if (resumesAt !== undefined && Number.isNaN(Date.parse(resumesAt)))
    throw new UsageError('--resumes-at takes an ISO 8601 date and time, e.g. 2027-01-01T00:00:00Z');
  const resumes = resumesAt === undefined ? {} : { resumes_at: new Date(resumesAt).toISOString() };
  return update(invocation, { pause_at_period_end: !!atPeriodEnd, ...resumes }, (s) => {
    const when = s.resumes_at ? `; it resumes on ${s.resumes_at}` : '';
    return s.status === 'paused'
      ? `Subscription ${s.id} is paused${when}.`
      : `Subscription ${s.id} will pause on ${s.current_period_end}${when}.`;
  });
}

export function resume(invocation: Invocation<Options>): Promise<void> {
  return update(
    invocation,
    { resume: true },
    (s) => `Subscription ${s.id} resumed; its new period ends on ${s.current_period_end}.`,
  );
}
