import { Box, Text } from 'ink';
import {
  formatMetric,
  latest,
  periodLabel,
  series,
  type MetricDefinition,
  type MetricsResponse,
} from '../../metrics.js';
import { money } from '../../money.js';
import { columns } from '../org-dashboard/components/section.js';
import { List, type Row } from '../webhooks-dashboard/components/list.js';
import { seriesFor } from './chart.js';
import { Chart } from './components/chart.js';
import { Customer } from './components/customer.js';
import { Footer } from './components/footer.js';
import type { RevenueData, Snapshot } from './data.js';
import { layoutFor } from './layout.js';
import { selectedRow, type SectionId, type ViewState } from './model.js';
import { REFRESH_MS, useDashboard } from './use-dashboard.js';
import { useTerminalSize } from './use-terminal-size.js';

const clock = (iso: string) => iso.slice(11, 19);
const stamp = (iso: string) => iso.slice(0, 19).replace('T', ' ');

/** The headline figures: levels (MRR, active subscriptions) as they stand at the end, flows summed over the range. */
const HEADLINE: Array<{ slug: string; label: string; at: 'latest' | 'total' }> = [
  { slug: 'monthly_recurring_revenue', label: 'MRR', at: 'latest' },
  { slug: 'revenue', label: 'Revenue', at: 'total' },
  { slug: 'orders', label: 'Orders', at: 'total' },
  { slug: 'active_subscriptions', label: 'Active subscriptions', at: 'latest' },
  { slug: 'churned_subscriptions', label: 'Churned', at: 'total' },
  { slug: 'churn_rate', label: 'Churn rate', at: 'total' },
];

function headline(metrics: MetricsResponse, currency: string): string {
  return HEADLINE.flatMap(({ slug, label, at }) => {
    const definition = metrics.metrics[slug] as MetricDefinition | null | undefined;
    if (!definition) return [];
    const value = at === 'latest' ? latest(metrics, slug) : metrics.totals[slug];
    return [`${label} ${formatMetric(value, definition.type, currency)}`];
  }).join('  ·  ');
}

function orderRows(snapshot: Snapshot): Row[] {
  const texts = columns(
    snapshot.orders.map((order) => [
      stamp(order.created_at),
      money(order.total_amount, order.currency),
      order.status,
      order.customer.email ?? order.customer_id,
      order.description,
    ]),
  );
  return snapshot.orders.map((order, index) => ({ key: order.id, text: texts[index]! }));
}

function pastDueRows(snapshot: Snapshot): Row[] {
  const texts = columns(
    snapshot.pastDue.map((subscription) => [
      subscription.customer.email ?? subscription.customer_id,
      subscription.product.name,
      `${money(subscription.amount, subscription.currency)}/${subscription.recurring_interval}`,
      subscription.cancel_at_period_end
        ? `ends ${subscription.ends_at ?? ''}`
        : `since ${stamp(subscription.current_period_start)}`,
      subscription.id,
    ]),
  );
  return snapshot.pastDue.map((subscription, index) => ({ key: subscription.id, text: texts[index]!, bad: true }));
}

/** The screen, given its data layer; `initial` skips the first load when the caller already has the data. */
export function RevenueDashboard({
  data,
  initial,
  refreshMs = REFRESH_MS,
}: {
  data: RevenueData;
  initial?: Snapshot;
  refreshMs?: number;
}) {
  const { snapshot, view } = useDashboard(data, initial, refreshMs);
  const size = useTerminalSize();
  if (!snapshot) {
    return (
      <Box flexDirection="column">
        <Text dimColor>Loading revenue…</Text>
        <Footer mode={view.mode} section={view.section} status={view.status} />
      </Box>
    );
  }
  const layout = layoutFor(size.columns, size.rows, view.customer !== null);
  const focused = (section: SectionId) => view.section === section;
  const { metrics, currency } = snapshot;
  const interval = snapshot.window.interval;
  const periods = metrics.periods;
  const from = periods[0] ? periodLabel(periods[0].timestamp, interval) : '';
  const to = periods.at(-1) ? periodLabel(periods.at(-1)!.timestamp, interval) : '';
  const amount = (value: number) => money(Math.round(value), currency);
  const pending = (window: ViewState['window']) =>
    window.range !== snapshot.window.range || window.interval !== snapshot.window.interval;
  return (
    <Box flexDirection="column" width={size.columns}>
      <Box>
        <Text bold>Revenue</Text>
        <Text>{`  ${snapshot.scope}`}</Text>
        <Text color="cyan">{`  ${view.window.range} by ${view.window.interval}`}</Text>
        <Text dimColor>
          {pending(view.window) ? '  loading…' : `  updated ${clock(snapshot.loadedAt.toISOString())} UTC`}
        </Text>
      </Box>
      <Text>{headline(metrics, currency)}</Text>
      <Box flexDirection={layout.sideBySide ? 'row' : 'column'}>
        <Chart
          title={`MRR (${currency.toUpperCase()})`}
          values={seriesFor(series(metrics, 'monthly_recurring_revenue'), layout.points, 'last')}
          height={layout.chartHeight}
          width={layout.chartWidth}
          label={amount}
          from={from}
          to={to}
        />
        <Chart
          title={`Revenue per ${interval} (${currency.toUpperCase()})`}
          values={seriesFor(series(metrics, 'revenue'), layout.points, 'sum')}
          height={layout.chartHeight}
          width={layout.chartWidth}
          label={amount}
          from={from}
          to={to}
        />
      </Box>
      <List
        title="Latest orders"
        focused={focused('orders')}
        rows={orderRows(snapshot)}
        selected={selectedRow(view, snapshot, 'orders')}
        size={layout.listRows}
        empty="no orders yet"
      />
      <List
        title="Past due"
        focused={focused('past_due')}
        rows={pastDueRows(snapshot)}
        selected={selectedRow(view, snapshot, 'past_due')}
        size={layout.listRows}
        empty="no past-due subscriptions"
      />
      {view.customer ? <Customer customer={view.customer} /> : null}
      <Footer mode={view.mode} section={view.section} status={view.status} />
    </Box>
  );
}
