import { describe, expect, it } from 'vitest';
import { WEBHOOK_RETRY, retryAfterMs } from '../../src/core/webhooks/delivery.js';

describe('retryAfterMs', () => {
  const now = Date.UTC(2026, 11, 14, 12, 0, 0);

  it('reads delay-seconds and HTTP dates (the IMF-fixdate and the obsolete forms) against the wall clock', () => {
    expect(retryAfterMs('0', now)).toBe(0);
    expect(retryAfterMs(' 30 ', now)).toBe(30_000);
    expect(retryAfterMs('Mon, 14 Dec 2026 12:01:00 GMT', now)).toBe(60_000);
    expect(retryAfterMs('Monday, 14-Dec-26 12:02:00 GMT', now)).toBe(120_000);
    expect(retryAfterMs('Mon Dec 14 12:00:10 2026', now)).toBe(10_000);
    // A date already past means now.
    expect(retryAfterMs('Mon, 14 Dec 2026 11:00:00 GMT', now)).toBe(0);
  });

  it('caps the wait at the schedule longest backoff', () => {
    expect(retryAfterMs('86400', now)).toBe(WEBHOOK_RETRY.maxBackoffMs);
    expect(retryAfterMs('Fri, 01 Jan 2027 00:00:00 GMT', now)).toBe(WEBHOOK_RETRY.maxBackoffMs);
  });

  it('answers null for what it cannot read, so the schedule applies', () => {
    for (const value of [undefined, '', 'soon', '-5', '1.5', 'Mon, 99 Foo 2026', 'Mon, 14 Dec 2026 12:01:00 PST'])
      expect(retryAfterMs(value, now)).toBeNull();
  });
});
