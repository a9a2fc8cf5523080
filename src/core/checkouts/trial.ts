import type { Product } from '../products/read.js';
import type { RecurringInterval } from '../products/schemas.js';
import { addInterval, type Interval } from '../subscriptions/periods.js';
import type { Checkout } from './repository.js';

/**
 * The trial a checkout grants (polar-contract §3.5): the checkout's own interval (set by the merchant, or copied from
 * its checkout link) else the product's; none when `allow_trial` is false or the product does not renew. A trial
 * checkout charges nothing today but keeps the card; its subscription is `trialing` until the trial's end.
 */
export interface Trial {
  interval: RecurringInterval;
  count: number;
}

export function activeTrial(
  checkout: Pick<Checkout, 'trialInterval' | 'trialIntervalCount' | 'allowTrial'>,
  product: Pick<Product, 'recurringInterval' | 'trialInterval' | 'trialIntervalCount'>,
): Trial | null {
  if (!product.recurringInterval || checkout.allowTrial === false) return null;
  const interval = checkout.trialInterval ?? product.trialInterval;
  if (!interval) return null;
  const count = (checkout.trialInterval ? checkout.trialIntervalCount : product.trialIntervalCount) ?? 1;
  return { interval, count };
}

export function trialEnd(trial: Trial, start: Date): Date {
  return addInterval(start, trial.interval as Interval, trial.count);
}
