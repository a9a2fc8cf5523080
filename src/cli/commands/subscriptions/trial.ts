import type { SubscriptionWire } from '../../../core/subscriptions/schemas.js';
import type { Invocation } from '../../action.js';
import { CliError } from '../../errors.js';
import { call, signedIn } from '../../context.js';
import { info, printJson } from '../../output.js';

/** `till subscriptions extend-trial <id> --until <ISO|now>`: PATCH trial_end (the daemon checks the time). */
export async function extendTrial({ args, opts, globals }: Invocation<{ until: string; json?: boolean }>) {
  const until = opts.until === 'now' ? 'now' : new Date(opts.until);
  if (until !== 'now' && Number.isNaN(until.getTime()))
    throw new CliError(`--until takes an ISO time or "now", not "${opts.until}"`);
  const subscription = await call<SubscriptionWire>(
    signedIn(globals),
    'PATCH',
    `/v1/subscriptions/${encodeURIComponent(String(args[0]))}`,
    { body: { trial_end: until === 'now' ? 'now' : until.toISOString() } },
  );
  if (opts.json) printJson(subscription);
  else if (until === 'now') info(`Trial ended and billed: ${subscription.id} is ${subscription.status}.`);
  else info(`Trial of ${subscription.id} now ends at ${subscription.trial_end}.`);
}
