import { tooManyRequests } from '../../core/auth/errors.js';
import type { Clock } from '../../core/kernel/clock.js';

interface Rule {
  windowMs: number;
  max: number;
}

// Better Auth's built-in rules (reference §9): credential routes 3 per 10 s, mail-sending routes 3 per minute,
// everything else 100 per 10 s, counted per client address and route.
const STRICT: Rule = { windowMs: 10_000, max: 3 };
const MAIL: Rule = { windowMs: 60_000, max: 3 };
const DEFAULT: Rule = { windowMs: 10_000, max: 100 };

export function ruleFor(path: string): Rule {
  if (/^\/(sign-in|sign-up|change-password|change-email)(\/|$)/.test(path)) return STRICT;
  if (/^\/(request-password-reset|send-verification-email|forget-password)(\/|$)/.test(path)) return MAIL;
  return DEFAULT;
}

const MAX_BUCKETS = 100_000;

/**
 * Fixed-window counters in memory, per daemon. A deployment with several daemons multiplies the per-address
 * allowance by their number; the per-account sign-in cap lives in the database and holds across all of them.
 */
export function createRateLimiter(clock: Clock) {
  const buckets = new Map<string, { count: number; resetAt: number }>();

  function sweep(now: number): void {
    for (const [key, bucket] of buckets) if (bucket.resetAt <= now) buckets.delete(key);
    // Still full of live buckets (an address flood): drop the oldest rather than grow without bound.
    const excess = buckets.size - MAX_BUCKETS;
    if (excess > 0) {
      let dropped = 0;
      for (const key of buckets.keys()) {
        if (dropped++ >= excess) break;
        buckets.delete(key);
      }
    }
  }

  return {
    /** Counts one request; throws 429 with X-Retry-After once the window's allowance is spent. */
    hit(address: string, path: string): void {
      const rule = ruleFor(path);
      const now = clock.now().getTime();
      const key = `${address}|${path}`;
      let bucket = buckets.get(key);
      if (!bucket || bucket.resetAt <= now) {
        if (buckets.size >= MAX_BUCKETS) sweep(now);
        bucket = { count: 0, resetAt: now + rule.windowMs };
        buckets.set(key, bucket);
      }
      bucket.count += 1;
      if (bucket.count > rule.max) throw tooManyRequests((bucket.resetAt - now) / 1000);
    },
  };
}
