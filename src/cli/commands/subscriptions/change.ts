import type { SubscriptionWire } from '../../../core/subscriptions/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { info, printJson } from '../../output.js';

interface Options {
  reason?: string;
  comment?: string;
  json?: boolean;
}

/** The daemon checks the reason (an unknown one is its 422, exit 1). */
function reasonFields(opts: Options): Record<string, string> {
  return {
    ...(opts.reason ? { customer_cancellation_reason: opts.reason } : {}),
    ...(opts.comment ? { customer_cancellation_comment: opts.comment } : {}),
  };
}

async function change(
  invocation: Invocation<Options>,
  method: 'PATCH' | 'DELETE',
  body: Record<string, unknown> | undefined,
  done: (s: SubscriptionWire) => string,
): Promise<void> {
  const id = String(invocation.args[0]);
  const subscription = await call<SubscriptionWire>(
    signedIn(invocation.globals),
    method,
    `/v1/subscriptions/${encodeURIComponent(id)}`,
    body ? { body } : {},
  );
  if (invocation.opts.json) printJson(subscription);
  else info(done(subscription));
}

export function cancel(invocation: Invocation<Options>): Promise<void> {
  return change(
    invocation,
    'PATCH',
    { cancel_at_period_end: true, ...reasonFields(invocation.opts) },
    (s) => `Subscription ${s.id} will end on ${s.ends_at}.`,
  );
}

export function uncancel(invocation: Invocation<Options>): Promise<void> {
  return change(
    invocation,
    'PATCH',
    { cancel_at_period_end: false },
    (s) => `Subscription ${s.id} continues; it renews on ${s.current_period_end}.`,
  );
}

export function revoke(invocation: Invocation<Options>): Promise<void> {
  const fields = reasonFields(invocation.opts);
  // With a reason, PATCH {revoke: true} carries it; without, DELETE is the same revocation.
  if (Object.keys(fields).length > 0)
    return change(invocation, 'PATCH', { revoke: true, ...fields }, (s) => `Subscription ${s.id} ended now.`);
  return change(invocation, 'DELETE', undefined, (s) => `Subscription ${s.id} ended now.`);
}
