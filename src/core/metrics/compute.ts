import { FLOW_COLUMNS, GAUGE_COLUMNS, HOUR_MS, type MetricColumn } from './contributions.js';
import type { HourSums } from './repository.js';
import { METRIC_DEFINITIONS, type MetricSlug, type MetricType } from './schemas.js';

type Values = Partial<Record<MetricSlug, number>>;

/** A ratio rounded to the minor unit, half up (averages of amounts). */
function average(total: number, count: number): number {
  return count === 0 ? 0 : Math.round(total / count);
}

function ratio(part: number, whole: number): number {
  return whole === 0 ? 0 : part / whole;
}

/** Figures derived from the summed flows and the gauges' levels of one period (or of the whole range). */
function derive(raw: Record<MetricColumn, number>, activeAtStart: number, cumulative: { gross: number; net: number }) {
  const values: Values = { ...raw };
  values.cumulative_revenue = cumulative.gross;
  values.net_cumulative_revenue = cumulative.net;
  values.average_order_value = average(raw.revenue, raw.orders);
  values.net_average_order_value = average(raw.net_revenue, raw.orders);
  values.annual_recurring_revenue = raw.monthly_recurring_revenue * 12;
  values.committed_annual_recurring_revenue = raw.committed_monthly_recurring_revenue * 12;
  values.checkouts_conversion = ratio(raw.succeeded_checkouts, raw.checkouts);
  values.churn_rate = ratio(raw.churned_subscriptions, activeAtStart);
  return values;
}

function pick(values: Values, slugs: readonly MetricSlug[]): Values {
  const out: Values = {};
  for (const slug of slugs) out[slug] = values[slug] ?? 0;
  return out;
}

/**
 * The answer from hourly sums: flows summed over each period, gauges at each period's end (their level before the
 * range plus every change up to then), cumulative revenue from the range's start. Totals: flows over the whole
 * range, gauges and cumulative figures as at its end, rates over the whole range.
 */
export function computeMetrics(
  starts: readonly number[],
  hours: readonly HourSums[],
  gaugesBefore: Partial<Record<MetricColumn, number>>,
  slugs: readonly MetricSlug[],
) {
  const zero = () =>
    Object.fromEntries([...FLOW_COLUMNS, ...GAUGE_COLUMNS].map((c) => [c, 0])) as Record<MetricColumn, number>;
  const periods = starts.map(() => zero());
  let index = 0;
  for (const row of hours) {
    const at = row.hour * HOUR_MS;
    while (index + 1 < starts.length && starts[index + 1] <= at) index++;
    // Hours before the first period (a zone's offset within the first UTC hour) count in it; none fall after the end.
    const period = periods[at < starts[0] ? 0 : index];
    for (const column of FLOW_COLUMNS) period[column] += row[column];
    for (const column of GAUGE_COLUMNS) period[column] += row[column];
  }
  const level = Object.fromEntries(GAUGE_COLUMNS.map((c) => [c, gaugesBefore[c] ?? 0])) as Record<MetricColumn, number>;
  const startLevel = level.active_subscriptions;
  const cumulative = { gross: 0, net: 0 };
  const totals = zero();
  const out = periods.map((period, i) => {
    const activeAtStart = level.active_subscriptions;
    for (const column of GAUGE_COLUMNS) {
      level[column] += period[column];
      period[column] = level[column];
    }
    for (const column of FLOW_COLUMNS) totals[column] += period[column];
    cumulative.gross += period.revenue;
    cumulative.net += period.net_revenue;
    return { timestamp: new Date(starts[i]).toISOString(), ...pick(derive(period, activeAtStart, cumulative), slugs) };
  });
  for (const column of GAUGE_COLUMNS) totals[column] = level[column];
  const definitions: Partial<Record<MetricSlug, { slug: string; display_name: string; type: MetricType }>> = {};
  for (const [slug, display_name, type] of METRIC_DEFINITIONS)
    if (slugs.includes(slug)) definitions[slug] = { slug, display_name, type };
  return {
    periods: out,
    totals: pick(derive(totals, startLevel, cumulative), slugs),
    metrics: definitions,
  };
}
