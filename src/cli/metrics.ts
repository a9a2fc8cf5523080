import { call, type Target } from './context.js';
import { UsageError } from './errors.js';
import { money } from './money.js';
import type { Page } from './pages.js';

// What `till metrics` and `till dashboard` share: the wire of GET /v1/metrics/ and /v1/metrics/limits (Polar's
// MetricsResponse and MetricsLimits, typed here because the CLI only reads them), the query, and how a figure reads.

export const INTERVALS = ['hour', 'day', 'week', 'month', 'year'] as const;
export type Interval = (typeof INTERVALS)[number];

/** Polar's MetricType: currency figures are in minor units, percentages are ratios (0.25 is 25 %). */
export type MetricType = 'scalar' | 'currency' | 'currency_sub_cent' | 'percentage';

export interface MetricDefinition {
  slug: string;
  display_name: string;
  type: MetricType;
}

/** One period: its start, then every metric the daemon computes by slug (null when it has no figure). */
export type MetricPeriod = { timestamp: string } & Record<string, number | null | string | undefined>;

export interface MetricsResponse {
  periods: MetricPeriod[];
  totals: Record<string, number | null | undefined>;
  metrics: Record<string, MetricDefinition | null | undefined>;
}

export interface MetricsLimits {
  min_date: string;
  intervals: Record<Interval, { min_days: number; max_days: number }>;
}

export interface MetricsQuery {
  startDate: string;
  endDate: string;
  interval: Interval;
  timezone?: string;
  organizationId?: string;
  productIds?: string[];
  metrics?: string[];
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A YYYY-MM-DD flag as typed, refused before anything is sent. */
export function dateFlag(name: string, value: string): string {
  if (!DATE.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) {
    throw new UsageError(`--${name} must be a date as YYYY-MM-DD, not "${value}"`);
  }
  return value;
}

export function intervalFlag(value: string): Interval {
  if (!(INTERVALS as readonly string[]).includes(value)) {
    throw new UsageError(`--interval must be one of ${INTERVALS.join(', ')}, not "${value}"`);
  }
  return value as Interval;
}

/** The UTC calendar date `days` days before `now` (0: today). */
export function daysBefore(now: Date, days: number): string {
  return new Date(now.getTime() - days * 86_400_000).toISOString().slice(0, 10);
}

export function metricsSearch(query: MetricsQuery): URLSearchParams {
  const search = new URLSearchParams({
    start_date: query.startDate,
    end_date: query.endDate,
    interval: query.interval,
  });
  if (query.timezone) search.set('timezone', query.timezone);
  if (query.organizationId) search.set('organization_id', query.organizationId);
  for (const product of query.productIds ?? []) search.append('product_id', product);
  for (const metric of query.metrics ?? []) search.append('metrics', metric);
  return search;
}

export function fetchMetrics(target: Target, query: MetricsQuery): Promise<MetricsResponse> {
  return call<MetricsResponse>(target, 'GET', `/v1/metrics/?${metricsSearch(query)}`);
}

export function fetchLimits(target: Target, organizationId?: string): Promise<MetricsLimits> {
  const search = organizationId ? `?${new URLSearchParams({ organization_id: organizationId })}` : '';
  return call<MetricsLimits>(target, 'GET', `/v1/metrics/limits${search}`);
}

/** What the figures need of their organization: its name, and the currency its amounts are in. */
export interface MetricsOrganization {
  name: string;
  default_presentment_currency: string;
}

/**
 * The organization the figures are about: the metrics carry amounts without a code, in the organization's
 * presentment currency. Without an id (an organization token acts for its own), the one the caller sees.
 */
export async function metricsOrganization(target: Target, organizationId?: string): Promise<MetricsOrganization> {
  const org = organizationId
    ? await call<MetricsOrganization>(target, 'GET', `/v1/organizations/${encodeURIComponent(organizationId)}`)
    : (await call<Page<MetricsOrganization>>(target, 'GET', '/v1/organizations/?limit=1')).items[0];
  return {
    name: org?.name ?? 'your organization',
    default_presentment_currency: org?.default_presentment_currency ?? 'usd',
  };
}

/** A figure as a person reads it: amounts in currency units with the code, ratios in percent, "—" for none. */
export function formatMetric(value: unknown, type: MetricType, currency: string): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '—';
  switch (type) {
    case 'currency':
    case 'currency_sub_cent':
      return money(Math.round(value), currency);
    case 'percentage':
      return `${(value * 100).toFixed(1)} %`;
    case 'scalar':
      return Number.isInteger(value) ? String(value) : value.toFixed(2);
  }
}

/** A period's start as its interval names it: a day needs no time of day, an hour does. */
export function periodLabel(timestamp: string, interval: Interval): string {
  if (interval === 'hour') return timestamp.slice(0, 16).replace('T', ' ');
  if (interval === 'month') return timestamp.slice(0, 7);
  if (interval === 'year') return timestamp.slice(0, 4);
  return timestamp.slice(0, 10);
}

/** The figures of one metric over the periods, nulls as 0 (a chart has no gaps). */
export function series(response: MetricsResponse, slug: string): number[] {
  return response.periods.map((period) => {
    const value = period[slug];
    return typeof value === 'number' && Number.isFinite(value) ? value : 0;
  });
}

/** The last period's figure: what a level metric (MRR, active subscriptions) stands at now. */
export function latest(response: MetricsResponse, slug: string): number | null {
  const value = response.periods.at(-1)?.[slug];
  return typeof value === 'number' ? value : null;
}
