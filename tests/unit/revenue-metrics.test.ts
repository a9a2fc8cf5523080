import { describe, expect, it } from 'vitest';
import { formatMetric, metricsSearch, periodLabel } from '../../src/cli/metrics.js';
import { fitSeries, seriesFor, stretchSeries } from '../../src/cli/tui/revenue-dashboard/chart.js';
import { layoutFor } from '../../src/cli/tui/revenue-dashboard/layout.js';
import { allowedIntervals } from '../../src/cli/tui/revenue-dashboard/model.js';
import { retryOutcome } from '../../src/cli/tui/revenue-dashboard/data.js';

const LIMITS = {
  min_date: '2026-01-01',
  intervals: {
    hour: { min_days: 0, max_days: 7 },
    day: { min_days: 0, max_days: 366 },
    week: { min_days: 14, max_days: 365 },
    month: { min_days: 60, max_days: 1460 },
    year: { min_days: 366, max_days: 3650 },
  },
};

describe('the figures as people read them', () => {
  it('formats amounts in currency units with the code, ratios in percent, counts as they are', () => {
    expect(formatMetric(123456, 'currency', 'usd')).toBe('1234.56 USD');
    expect(formatMetric(1500, 'currency', 'jpy')).toBe('1500 JPY');
    expect(formatMetric(1234.4, 'currency_sub_cent', 'eur')).toBe('12.34 EUR');
    expect(formatMetric(0.125, 'percentage', 'usd')).toBe('12.5 %');
    expect(formatMetric(7, 'scalar', 'usd')).toBe('7');
    expect(formatMetric(2.5, 'scalar', 'usd')).toBe('2.50');
    expect(formatMetric(null, 'currency', 'usd')).toBe('—');
  });

  it("labels a period by its interval and sends Polar's query parameters", () => {
    expect(periodLabel('2026-11-25T13:00:00Z', 'hour')).toBe('2026-11-25 13:00');
    expect(periodLabel('2026-11-25T00:00:00Z', 'day')).toBe('2026-11-25');
    expect(periodLabel('2026-11-01T00:00:00Z', 'month')).toBe('2026-11');
    expect(periodLabel('2026-01-01T00:00:00Z', 'year')).toBe('2026');
    const search = metricsSearch({
      startDate: '2026-11-01',
      endDate: '2026-11-30',
      interval: 'week',
      organizationId: 'org',
      productIds: ['p1', 'p2'],
      metrics: ['revenue'],
    });
    expect(search.toString()).toBe(
      'start_date=2026-11-01&end_date=2026-11-30&interval=week&organization_id=org&product_id=p1&product_id=p2&metrics=revenue',
    );
  });
});

describe('the dashboard arithmetic', () => {
  it('fits a long series into the columns there are: flows summed, levels at their latest', () => {
    expect(fitSeries([1, 2, 3], 10, 'sum')).toEqual([1, 2, 3]);
    expect(fitSeries([1, 2, 3, 4, 5, 6], 3, 'sum')).toEqual([3, 7, 11]);
    expect(fitSeries([1, 2, 3, 4, 5, 6], 3, 'last')).toEqual([2, 4, 6]);
    const fitted = fitSeries(
      Array.from({ length: 365 }, () => 1),
      80,
      'sum',
    );
    expect(fitted).toHaveLength(80);
    expect(fitted.reduce((total, value) => total + value, 0)).toBe(365);
  });

  it('widens a short series to the columns there are, each point an equal run', () => {
    expect(stretchSeries([1, 2], 7)).toEqual([1, 1, 1, 2, 2, 2]);
    expect(stretchSeries([1, 2, 3], 4)).toEqual([1, 2, 3]);
    expect(seriesFor([1, 2, 3, 4, 5, 6], 3, 'sum')).toEqual([3, 7, 11]);
    expect(seriesFor([5], 3, 'last')).toEqual([5, 5, 5]);
  });

  it("offers only the intervals the daemon's limits allow over the range", () => {
    expect(allowedIntervals(LIMITS, 7)).toEqual(['hour', 'day']);
    expect(allowedIntervals(LIMITS, 30)).toEqual(['day', 'week']);
    expect(allowedIntervals(LIMITS, 365)).toEqual(['day', 'week', 'month']);
  });

  it('puts the charts side by side on a wide terminal and gives them the height left over', () => {
    const wide = layoutFor(160, 50, false);
    expect(wide.sideBySide).toBe(true);
    expect(wide.chartWidth).toBe(79);
    const narrow = layoutFor(80, 24, false);
    expect(narrow.sideBySide).toBe(false);
    expect(narrow.chartHeight).toBe(3);
    expect(layoutFor(100, 40, true).chartHeight).toBeLessThan(layoutFor(100, 40, false).chartHeight);
  });

  it("words the daemon's answer to a retry", () => {
    expect(retryOutcome('sub_1', { id: 'sub_1', status: 'active' })).toBe('Charge retried for sub_1: now active');
    expect(retryOutcome('sub_1', null)).toBe('Charge retried for sub_1');
  });
});
