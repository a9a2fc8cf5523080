import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import {
  carriedCredit,
  ordersOf,
  patch,
  plan,
  simulateCycle,
  subscribe,
  unbilledTotal,
} from '../helpers/subscription-changes.js';
import { createMerchant } from '../helpers/v1.js';

/**
 * Property: over any sequence of plan changes (random times, plans and proration modes), what the customer is billed
 * (the checkout, the invoiced `subscription_update` orders, every cycle order the renewal cycle wrote with the
 * hooks' items, less any credit still carried or waiting) equals the price-time they actually used, within one minor unit per
 * immediate change (each change rounds its credit and its debit once). A seeded PRNG makes a failure reproducible.
 */

const daemon = useTestDaemon();

function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const MODES = ['invoice', 'prorate', 'next_period'] as const;
const PERIODS = 4;

async function runSequence(seed: number) {
  const random = mulberry32(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  // Starts on the 31st, so periods are 28 to 31 days long.
  daemon().clock.set(new Date('2027-01-31T09:30:00.000Z'));
  const merchant = await createMerchant(daemon());
  const plans = [];
  for (let i = 0; i < 4; i++) {
    const amount = 100 + Math.floor(random() * 9900);
    plans.push({ amount, id: (await plan(merchant, `Plan ${seed}-${i}`, amount)).id });
  }
  let current = pick(plans);
  const subscription = await subscribe(daemon(), merchant, current.id);
  let charged = subscription.paid;
  let used = 0;
  let immediate = 0;
  let inEffect = current.amount;
  let pending: (typeof plans)[number] | null = null;
  const log: string[] = [];

  for (let period = 0; period < PERIODS; period++) {
    const state = (await merchant.api.get(`/v1/subscriptions/${subscription.id}`)).json;
    const start = Date.parse(state.current_period_start);
    const end = Date.parse(state.current_period_end);
    const seconds = (end - start) / 1000;
    const offsets = Array.from({ length: Math.floor(random() * 4) }, () => 1 + Math.floor(random() * (seconds - 2)));
    offsets.sort((a, b) => a - b);
    let last = start;
    for (const offset of offsets) {
      const at = start + offset * 1000;
      if (at === last) continue;
      const target = pick(plans.filter((p) => p.id !== current.id));
      const mode = pick(MODES);
      daemon().clock.set(new Date(at));
      const response = await patch(merchant.api, `/v1/subscriptions/${subscription.id}`, {
        product_id: target.id,
        proration_behavior: mode,
      });
      expect(response.status, `seed ${seed}: ${response.text}`).toBe(200);
      log.push(`${new Date(at).toISOString()} ${mode} ${current.amount}→${target.amount}`);
      if (mode === 'next_period') {
        pending = target;
        continue;
      }
      used += (inEffect * (at - last)) / 1000 / seconds;
      last = at;
      inEffect = target.amount;
      current = target;
      pending = null;
      immediate += 1;
    }
    used += (inEffect * (end - last)) / 1000 / seconds;
    daemon().clock.set(new Date(end));
    const cycle = await simulateCycle(daemon(), subscription.id);
    charged += cycle!.total;
    if (pending) {
      current = pending;
      inEffect = pending.amount;
      pending = null;
    }
  }
  // The last cycle billed the next period in advance: count it as used in full.
  used += inEffect;
  const invoiced = (await ordersOf(merchant, subscription.id))
    .filter((order) => order.billing_reason === 'subscription_update')
    .reduce((sum, order) => sum + order.total_amount, 0);
  charged +=
    invoiced + (await unbilledTotal(daemon(), subscription.id)) - (await carriedCredit(daemon(), subscription.id));
  return { charged, used, immediate, log };
}

describe('proration property', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])(
    'seed %i: billed equals price-time used within one unit per change',
    async (seed) => {
      const { charged, used, immediate, log } = await runSequence(seed);
      expect(Math.abs(charged - used), `seed ${seed}\n${log.join('\n')}`).toBeLessThanOrEqual(immediate + 1e-6);
    },
  );
});
