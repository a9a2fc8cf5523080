import { z } from 'zod';
import { repeated, uuidFilter } from '../kernel/pagination.js';
import { canonicalZone } from '../kernel/time-zones.js';
import { INTERVALS } from './periods.js';

/** The metrics Till serves, in Polar's order, with Polar's slugs, names and types. */
export const METRIC_DEFINITIONS = [
  ['active_subscriptions', 'Active Subscriptions', 'scalar'],
  ['committed_subscriptions', 'Committed Subscriptions', 'scalar'],
  ['monthly_recurring_revenue', 'Monthly Recurring Revenue', 'currency'],
  ['committed_monthly_recurring_revenue', 'Committed Monthly Recurring Revenue', 'currency'],
  ['checkouts', 'Checkouts', 'scalar'],
  ['succeeded_checkouts', 'Succeeded Checkouts', 'scalar'],
  ['churned_subscriptions', 'Churned Subscriptions', 'scalar'],
  ['churn_rate', 'Churn Rate', 'percentage'],
  ['orders', 'Orders', 'scalar'],
  ['revenue', 'Revenue', 'currency'],
  ['net_revenue', 'Net Revenue', 'currency'],
  ['cumulative_revenue', 'Cumulative Revenue', 'currency'],
  ['net_cumulative_revenue', 'Net Cumulative Revenue', 'currency'],
  ['average_order_value', 'Average Order Value', 'currency'],
  ['net_average_order_value', 'Net Average Order Value', 'currency'],
  ['one_time_products', 'One-Time Products', 'scalar'],
  ['one_time_products_revenue', 'One-Time Products Revenue', 'currency'],
  ['one_time_products_net_revenue', 'One-Time Products Net Revenue', 'currency'],
  ['new_subscriptions', 'New Subscriptions', 'scalar'],
  ['new_subscriptions_revenue', 'New Subscriptions Revenue', 'currency'],
  ['new_subscriptions_net_revenue', 'New Subscriptions Net Revenue', 'currency'],
  ['renewed_subscriptions', 'Renewed Subscriptions', 'scalar'],
  ['renewed_subscriptions_revenue', 'Renewed Subscriptions Revenue', 'currency'],
  ['renewed_subscriptions_net_revenue', 'Renewed Subscriptions Net Revenue', 'currency'],
  ['canceled_subscriptions', 'Canceled Subscriptions', 'scalar'],
  ['annual_recurring_revenue', 'Annual Recurring Revenue', 'currency'],
  ['committed_annual_recurring_revenue', 'Committed Annual Recurring Revenue', 'currency'],
  ['checkouts_conversion', 'Checkouts Conversion Rate', 'percentage'],
] as const;

export type MetricSlug = (typeof METRIC_DEFINITIONS)[number][0];
export const METRIC_SLUGS = METRIC_DEFINITIONS.map(([slug]) => slug) as MetricSlug[];
export type MetricType = 'scalar' | 'currency' | 'currency_sub_cent' | 'percentage';

/** Polar's MAX_INTERVAL_DAYS (server/polar/metrics/limits.py) and the minimum spans its limits endpoint reports. */
export const INTERVAL_LIMITS = {
  hour: { min_days: 0, max_days: 7 },
  day: { min_days: 0, max_days: 366 },
  week: { min_days: 14, max_days: 365 },
  month: { min_days: 60, max_days: 365 * 4 },
  year: { min_days: 366, max_days: 365 * 10 },
} as const;
export const MIN_DATE = '2023-01-01';

/** A calendar date from 1970 on (before it, JavaScript's calendar arithmetic would read years below 100 as 19xx). */
function isDate(value: string): boolean {
  const at = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().startsWith(value) && at.getUTCFullYear() >= 1970;
}

const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'Input should be a valid date in the format YYYY-MM-DD' })
  .refine(isDate, { message: 'Input should be a valid date' });

export const metricsQuery = z.object({
  start_date: isoDate,
  end_date: isoDate,
  interval: z.enum(INTERVALS),
  timezone: z
    .string()
    .min(1)
    .max(64)
    .refine((zone) => canonicalZone(zone) !== null, {
      message: 'Input should be a valid IANA time zone, such as UTC or Europe/Paris',
    })
    .transform((zone) => canonicalZone(zone)!)
    .default('UTC'),
  organization_id: repeated(z.string()).optional(),
  product_id: uuidFilter().optional(),
  billing_type: repeated(z.enum(['one_time', 'recurring'])).optional(),
  customer_id: uuidFilter().optional(),
  metrics: repeated(z.enum(METRIC_SLUGS as [MetricSlug, ...MetricSlug[]])).optional(),
});
export type MetricsQuery = z.output<typeof metricsQuery>;

const metricValue = z.number().nullable().optional();
const metricFields = Object.fromEntries(METRIC_SLUGS.map((slug) => [slug, metricValue])) as Record<
  MetricSlug,
  typeof metricValue
>;
const metricDefinition = z
  .object({
    slug: z.string(),
    display_name: z.string(),
    type: z.enum(['scalar', 'currency', 'currency_sub_cent', 'percentage']),
  })
  .nullable()
  .optional();

export const metricsResponse = z.object({
  periods: z.array(z.object({ timestamp: z.string(), ...metricFields })),
  totals: z.object(metricFields),
  metrics: z.object(
    Object.fromEntries(METRIC_SLUGS.map((slug) => [slug, metricDefinition])) as Record<
      MetricSlug,
      typeof metricDefinition
    >,
  ),
});
export type MetricsResponse = z.output<typeof metricsResponse>;

const intervalLimit = z.object({ min_days: z.number().int(), max_days: z.number().int() });
export const metricsLimitsResponse = z.object({
  min_date: z.string(),
  intervals: z.object({
    hour: intervalLimit,
    day: intervalLimit,
    week: intervalLimit,
    month: intervalLimit,
    year: intervalLimit,
  }),
});
