import { MetricsResponse$inboundSchema } from '@polar-sh/sdk/models/components/metricsresponse.js';
import { RFCDate } from '@polar-sh/sdk/types/rfcdate.js';
import { describe, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalog.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { purchase } from '../helpers/purchases.js';
import { ALL_SCOPES, createMerchant } from '../helpers/v1.js';

// @polar-sh/sdk 0.47.1 against /v1/metrics: the answers go through the SDK's response schemas, and the raw body of a
// full answer (every metric Till serves) is parsed with them too.

const daemon = useTestDaemon();

describe('@polar-sh/sdk metrics', () => {
  it('is parsed by @polar-sh/sdk 0.47 (metrics.get and metrics.limits)', async () => {
    daemon().clock.set(new Date('2026-11-27T09:00:00.000Z'));
    const merchant = await createMerchant(daemon(), { scopes: [...ALL_SCOPES, 'metrics:read'] });
    const monthly = await createProduct(merchant, {
      recurring_interval: 'month',
      prices: [{ amount_type: 'fixed', price_amount: 990, price_currency: 'usd' }],
    });
    await purchase(daemon(), merchant, monthly.id);
    const answer = await merchant.sdk.metrics.get({
      startDate: new RFCDate('2026-11-27'),
      endDate: new RFCDate('2026-11-28'),
      interval: 'day',
      timezone: 'Europe/Paris',
    });
    expect(answer.periods).toHaveLength(2);
    expect(answer.periods[0].timestamp).toBeInstanceOf(Date);
    expect(answer.periods[0].monthlyRecurringRevenue).toBe(990);
    expect(answer.totals.activeSubscriptions).toBe(1);
    expect(answer.metrics.monthlyRecurringRevenue?.displayName).toBe('Monthly Recurring Revenue');
    const raw = await merchant.api.get('/v1/metrics/?start_date=2026-11-01&end_date=2026-11-30&interval=week');
    const parsed = MetricsResponse$inboundSchema.parse(raw.json);
    expect(parsed.totals.revenue).toBe(990);
    expect(Object.keys(parsed.metrics)).toHaveLength(28);
    const limits = await merchant.sdk.metrics.limits();
    expect(limits.intervals.day.maxDays).toBe(366);
    expect(limits.minDate.toString()).toBe('2023-01-01');
  });
});
