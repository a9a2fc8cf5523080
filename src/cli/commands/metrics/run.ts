import type { Invocation } from '../../action.js';
import { actingOrg, signedIn, type Target } from '../../context.js';
import { ApiError, UsageError } from '../../errors.js';
import {
  dateFlag,
  daysBefore,
  fetchMetrics,
  formatMetric,
  intervalFlag,
  periodLabel,
  metricsOrganization,
  type MetricDefinition,
  type MetricsQuery,
} from '../../metrics.js';
import { printJson, printTable } from '../../output.js';

interface Options {
  start?: string;
  end?: string;
  interval: string;
  timezone?: string;
  product?: string[];
  metric?: string[];
  org?: string;
  json?: boolean;
}

/** What a merchant looks at first, when no --metric narrows the table. */
export const DEFAULT_METRICS = [
  'revenue',
  'net_revenue',
  'orders',
  'monthly_recurring_revenue',
  'active_subscriptions',
  'new_subscriptions',
  'canceled_subscriptions',
];

/** The daemon refuses a --metric it does not know (422 on `metrics`): said as a usage error naming the ones it has. */
async function unknownMetrics(error: unknown, target: Target, query: MetricsQuery): Promise<UsageError | null> {
  const issues = error instanceof ApiError && error.status === 422 ? error.detail : null;
  if (!Array.isArray(issues) || !issues.some((issue: { loc?: unknown[] }) => issue.loc?.includes('metrics'))) {
    return null;
  }
  const known = Object.keys((await fetchMetrics(target, { ...query, metrics: undefined })).metrics);
  const unknown = (query.metrics ?? []).filter((slug) => !known.includes(slug));
  return new UsageError(`unknown metric ${unknown.map((slug) => `"${slug}"`).join(', ')}; known: ${known.join(', ')}`);
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  const interval = intervalFlag(opts.interval);
  const endDate = opts.end === undefined ? daysBefore(new Date(), 0) : dateFlag('end', opts.end);
  const startDate =
    opts.start === undefined ? daysBefore(new Date(`${endDate}T00:00:00Z`), 29) : dateFlag('start', opts.start);
  if (startDate > endDate) throw new UsageError(`--start (${startDate}) is after --end (${endDate})`);
  const target = signedIn(globals);
  const org = await actingOrg(target, { org: opts.org, json: opts.json });
  const query: MetricsQuery = {
    startDate,
    endDate,
    interval,
    timezone: opts.timezone,
    organizationId: org?.id,
    productIds: opts.product,
    metrics: opts.metric,
  };
  const response = await fetchMetrics(target, query).catch(async (error: unknown) => {
    throw (await unknownMetrics(error, target, query)) ?? error;
  });
  if (opts.json) {
    printJson(response);
    return;
  }
  const known = Object.values(response.metrics).filter((metric): metric is MetricDefinition => Boolean(metric));
  const bySlug = new Map(known.map((metric) => [metric.slug, metric]));
  const unknown = (opts.metric ?? []).filter((slug) => !bySlug.has(slug));
  if (unknown.length > 0) {
    throw new UsageError(
      `unknown metric ${unknown.map((slug) => `"${slug}"`).join(', ')}; known: ${[...bySlug.keys()].join(', ')}`,
    );
  }
  const chosen = (opts.metric ?? DEFAULT_METRICS.filter((slug) => bySlug.has(slug))).map((slug) => bySlug.get(slug)!);
  const currency = (await metricsOrganization(target, org?.id)).default_presentment_currency;
  const cells = (values: Record<string, unknown>) =>
    chosen.map((metric) => formatMetric(values[metric.slug], metric.type, currency));
  printTable(
    ['PERIOD', ...chosen.map((metric) => metric.display_name.toUpperCase())],
    [
      ...response.periods.map((period) => [periodLabel(period.timestamp, interval), ...cells(period)]),
      ['TOTAL', ...cells(response.totals)],
    ],
  );
}
