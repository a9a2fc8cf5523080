import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { MetricsLimits, MetricsResponse } from '../../src/cli/metrics.js';
import type { OrderWire } from '../../src/core/orders/schemas.js';
import type { SubscriptionWire } from '../../src/core/subscriptions/schemas.js';
import type { CustomerDetail, RevenueData, Snapshot, Window } from '../../src/cli/tui/revenue-dashboard/data.js';
import { RevenueDashboard } from '../../src/cli/tui/revenue-dashboard/index.js';

// The revenue screen with an injected data layer: every load, retry, cancel and open is recorded, so the tests see
// which window the keys asked for and which subscription an action went to, without a daemon.

const TAB = '\t';
const DOWN = '\u001B[B';

const LIMITS: MetricsLimits = {
  min_date: '2026-01-01',
  intervals: {
    hour: { min_days: 0, max_days: 7 },
    day: { min_days: 0, max_days: 366 },
    week: { min_days: 14, max_days: 365 },
    month: { min_days: 60, max_days: 1460 },
    year: { min_days: 366, max_days: 3650 },
  },
};

const DEFINITIONS: MetricsResponse['metrics'] = {
  revenue: { slug: 'revenue', display_name: 'Revenue', type: 'currency' },
  orders: { slug: 'orders', display_name: 'Orders', type: 'scalar' },
  monthly_recurring_revenue: { slug: 'monthly_recurring_revenue', display_name: 'MRR', type: 'currency' },
  active_subscriptions: { slug: 'active_subscriptions', display_name: 'Active Subscriptions', type: 'scalar' },
  churned_subscriptions: { slug: 'churned_subscriptions', display_name: 'Churned', type: 'scalar' },
  churn_rate: { slug: 'churn_rate', display_name: 'Churn Rate', type: 'percentage' },
};

/** Periods whose revenue climbs by 10.00 each, and MRR at 49.00 throughout. */
function metrics(count: number): MetricsResponse {
  const periods = Array.from({ length: count }, (_, index) => ({
    timestamp: new Date(Date.UTC(2026, 10, 1 + index)).toISOString(),
    revenue: 1000 * (index + 1),
    orders: index + 1,
    monthly_recurring_revenue: 4900,
    active_subscriptions: 1,
    churned_subscriptions: 0,
    churn_rate: 0,
  }));
  const revenue = periods.reduce((total, period) => total + period.revenue, 0);
  return {
    periods,
    totals: { revenue, orders: (count * (count + 1)) / 2, churned_subscriptions: 0, churn_rate: 0.25 },
    metrics: DEFINITIONS,
  };
}

const order = (id: string, email: string, total: number) =>
  ({
    id,
    created_at: '2026-11-25T10:00:00.000Z',
    total_amount: total,
    currency: 'usd',
    status: 'paid',
    customer_id: `cus_${id}`,
    customer: { email },
    description: 'Pro plan',
  }) as unknown as OrderWire;

const pastDue = (id: string, email: string) =>
  ({
    id,
    amount: 4900,
    currency: 'usd',
    recurring_interval: 'month',
    cancel_at_period_end: false,
    ends_at: null,
    current_period_start: '2026-11-01T00:00:00.000Z',
    current_period_end: '2026-12-01T00:00:00.000Z',
    customer_id: `cus_${id}`,
    customer: { email },
    product: { name: 'Pro plan' },
  }) as unknown as SubscriptionWire;

function fakeData(options: { retry?: () => Promise<string> } = {}) {
  const loads: Window[] = [];
  const retried: string[] = [];
  const canceled: string[] = [];
  const opened: string[] = [];
  let orders = [order('ord_1', 'first@example.com', 1900)];
  const data: RevenueData = {
    async load(window) {
      loads.push(window);
      const count = { '7d': 7, '30d': 30, '90d': 13, '1y': 12 }[window.range];
      return {
        scope: 'Acme',
        currency: 'usd',
        window,
        metrics: metrics(count),
        limits: LIMITS,
        orders,
        pastDue: [pastDue('sub_late', 'late@example.com'), pastDue('sub_later', 'later@example.com')],
        loadedAt: new Date('2026-11-25T12:00:00Z'),
      } satisfies Snapshot;
    },
    async retryPayment(id) {
      retried.push(id);
      return options.retry ? options.retry() : `Charge retried for ${id}: now active`;
    },
    async cancel(id) {
      canceled.push(id);
      return `Subscription ${id} will end on 2026-12-01T00:00:00.000Z`;
    },
    async openCustomer(id): Promise<CustomerDetail> {
      opened.push(id);
      return {
        id,
        label: 'late@example.com',
        activeSubscriptions: 1,
        grantedBenefits: 2,
        portalUrl: `http://till.test/portal/${id}`,
        portalExpiresAt: '2026-11-25T13:00:00.000Z',
      };
    },
  };
  return { data, loads, retried, canceled, opened, addOrder: (next: OrderWire) => (orders = [next, ...orders]) };
}

async function until(test: () => boolean): Promise<void> {
  for (let waited = 0; waited < 5_000 && !test(); waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
}

function screen(data: RevenueData, refreshMs = 60_000) {
  const ui = render(<RevenueDashboard data={data} refreshMs={refreshMs} />);
  const frame = () => ui.lastFrame() ?? '';
  const untilFrame = async (test: (frame: string) => boolean, what: string) => {
    await until(() => test(frame()));
    expect(test(frame()), `expected the frame to show ${what}; last frame:\n${frame()}`).toBe(true);
  };
  const press = async (keys: string, expected: (frame: string) => boolean, what: string) => {
    ui.stdin.write(keys);
    await untilFrame(expected, what);
  };
  /** Sets the terminal's size the way a real one changes: new dimensions, then a resize event. */
  const resize = (columns: number, rows: number) => {
    Object.defineProperty(ui.stdout, 'columns', { value: columns, configurable: true });
    Object.defineProperty(ui.stdout, 'rows', { value: rows, configurable: true });
    ui.stdout.emit('resize');
  };
  return { frame, until: untilFrame, press, resize };
}

afterEach(() => cleanup());

describe('till dashboard (Ink screen, injected data)', () => {
  it('shows the headline figures, MRR and revenue charts, the latest orders and the past-due subscriptions', async () => {
    const fake = fakeData();
    const ui = screen(fake.data);
    await ui.until((f) => f.includes('Latest orders'), 'the first load');
    const f = ui.frame();
    expect(fake.loads).toEqual([{ range: '30d', interval: 'day' }]);
    expect(f).toContain('Acme');
    expect(f).toContain('30d by day');
    // MRR stands at its last period, revenue is summed over the range (10.00 + 20.00 + … + 300.00).
    expect(f).toContain('MRR 49.00 USD');
    expect(f).toContain('Revenue 4650.00 USD');
    expect(f).toContain('Orders 465');
    expect(f).toContain('Active subscriptions 1');
    expect(f).toContain('Churn rate 25.0 %');
    // asciichart's axis and line, with y labels in currency units.
    expect(f).toContain('MRR (USD)');
    expect(f).toContain('Revenue per day (USD)');
    expect(f).toMatch(/300\.00 USD [┤┼]/);
    expect(f).toMatch(/[╭╯─]/);
    expect(f).toContain('2026-11-01');
    expect(f).toContain('2026-11-30');
    expect(f).toMatch(/19\.00 USD\s+paid\s+first@example\.com\s+Pro plan/);
    expect(f).toContain('Past due (2)');
    expect(f).toMatch(/› late@example\.com\s+Pro plan\s+49\.00 USD\/month/);
  });

  it('switches range with 1–4 and interval with i, asking the data layer for the new window', async () => {
    const fake = fakeData();
    const ui = screen(fake.data);
    await ui.until((f) => f.includes('30d by day'), 'the first load');
    await ui.press('1', (f) => f.includes('7d by day') && f.includes('updated'), 'the 7-day range');
    expect(fake.loads.at(-1)).toEqual({ range: '7d', interval: 'day' });
    // Over 7 days the daemon allows hours and days only: i goes to hour, then back round to day.
    await ui.press('i', (f) => f.includes('7d by hour') && f.includes('updated'), 'hourly');
    expect(fake.loads.at(-1)).toEqual({ range: '7d', interval: 'hour' });
    await ui.press('i', (f) => f.includes('7d by day') && f.includes('updated'), 'daily again');
    await ui.press('4', (f) => f.includes('1y by month') && f.includes('updated'), 'the year, monthly');
    expect(fake.loads.at(-1)).toEqual({ range: '1y', interval: 'month' });
    expect(ui.frame()).toContain('Revenue per month (USD)');
    await ui.press('I', (f) => f.includes('1y by week') && f.includes('updated'), 'the year, weekly');
    await ui.press('3', (f) => f.includes('90d by week') && f.includes('updated'), 'the quarter, weekly');
    expect(fake.loads.at(-1)).toEqual({ range: '90d', interval: 'week' });
  });

  it('retries the charge of the selected past-due subscription after a yes, and shows the answer', async () => {
    const fake = fakeData();
    const ui = screen(fake.data);
    await ui.until((f) => f.includes('Past due (2)'), 'the past-due list');
    await ui.press(DOWN, (f) => /› later@example\.com/.test(f), 'the second row selected');
    await ui.press('r', (f) => f.includes('Charge later@example.com again now for Pro plan? [y/N]'), 'the question');
    expect(fake.retried).toEqual([]);
    await ui.press('y', (f) => f.includes('✓ Charge retried for sub_later: now active'), 'the answer');
    expect(fake.retried).toEqual(['sub_later']);
    // A no changes nothing.
    await ui.press('c', (f) => f.includes('[y/N]'), 'the cancel question');
    await ui.press('n', (f) => f.includes('Nothing changed'), 'declined');
    expect(fake.canceled).toEqual([]);
  });

  it("shows the daemon's refusal of a retry in the status line", async () => {
    const fake = fakeData({ retry: () => Promise.reject(new Error('subscription sub_late is not past due')) });
    const ui = screen(fake.data);
    await ui.until((f) => f.includes('Past due (2)'), 'the past-due list');
    await ui.press('r', (f) => f.includes('[y/N]'), 'the question');
    await ui.press('y', (f) => f.includes('✗ subscription sub_late is not past due'), 'the refusal');
    expect(fake.retried).toEqual(['sub_late']);
  });

  it('cancels at the period end and opens the customer with a portal link', async () => {
    const fake = fakeData();
    const ui = screen(fake.data);
    await ui.until((f) => f.includes('Past due (2)'), 'the past-due list');
    await ui.press('c', (f) => f.includes('Cancel Pro plan of late@example.com at the end of its period? [y/N]'), 'q');
    await ui.press('y', (f) => f.includes('✓ Subscription sub_late will end on 2026-12-01'), 'the cancel');
    expect(fake.canceled).toEqual(['sub_late']);
    await ui.press('o', (f) => f.includes('Portal: http://till.test/portal/cus_sub_late'), 'the customer');
    expect(fake.opened).toEqual(['cus_sub_late']);
    expect(ui.frame()).toContain('1 active subscription(s) · 2 benefit(s) granted');
    // Moving the selection puts the customer away; on an order, o opens that order's customer and r only hints.
    await ui.press(TAB, (f) => !f.includes('Portal:') && /› 2026-11-25 10:00:00/.test(f), 'the orders list');
    await ui.press('r', (f) => f.includes('r acts on a past-due subscription: Tab to Past due first'), 'the hint');
    expect(fake.retried).toEqual([]);
    await ui.press('o', (f) => f.includes('Portal: http://till.test/portal/cus_ord_1'), "the buyer's portal");
  });

  it('shows new orders as they come in, without a key press', async () => {
    const fake = fakeData();
    const ui = screen(fake.data, 30);
    await ui.until((f) => f.includes('Latest orders (1)'), 'one order');
    fake.addOrder(order('ord_2', 'second@example.com', 4900));
    await ui.until((f) => f.includes('Latest orders (2)') && f.includes('second@example.com'), 'the new order');
  });

  it('lays the charts out for the terminal and again when it is resized', async () => {
    const fake = fakeData();
    const ui = screen(fake.data);
    await ui.until((f) => f.includes('Latest orders'), 'the first load');
    const titleLine = () =>
      ui
        .frame()
        .split('\n')
        .find((line) => line.includes('MRR (USD)')) ?? '';
    // ink-testing-library's terminal is 100 columns: one chart above the other.
    expect(titleLine()).not.toContain('Revenue per day');
    ui.resize(160, 50);
    await ui.until(() => titleLine().includes('Revenue per day'), 'the charts side by side');
    const wide = ui.frame().split('\n').length;
    ui.resize(80, 30);
    await ui.until(() => !titleLine().includes('Revenue per day'), 'the charts stacked again');
    expect(
      Math.max(
        ...ui
          .frame()
          .split('\n')
          .map((line) => line.length),
      ),
    ).toBeLessThanOrEqual(80);
    expect(ui.frame().split('\n').length).toBeLessThan(wide + 20);
  });
});
