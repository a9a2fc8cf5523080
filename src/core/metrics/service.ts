import type { Db } from '../database/index.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { organizationFilter } from '../polar-api/actor.js';
import { validationError } from '../polar-api/errors.js';
import { HOUR_MS, METRIC_COLUMNS } from './contributions.js';
import { computeMetrics } from './compute.js';
import { periodBoundaries } from './periods.js';
import { gaugesBefore, organizationCurrencies, sumsByHour, type RollupScope } from './repository.js';
import { INTERVAL_LIMITS, METRIC_SLUGS, MIN_DATE, type MetricsQuery, type MetricsResponse } from './schemas.js';

export interface MetricsService {
  get(actor: MerchantActor, query: MetricsQuery): Promise<MetricsResponse>;
  limits(): { min_date: string; intervals: typeof INTERVAL_LIMITS };
}

const DAY_MS = 86_400_000;

function dayNumber(date: string): number {
  return Date.parse(`${date}T00:00:00Z`) / DAY_MS;
}

/** Polar's checks: the range runs forwards and stays within the interval's limit (else too many periods). */
function checkRange(query: MetricsQuery): void {
  const span = dayNumber(query.end_date) - dayNumber(query.start_date);
  if (span < 0)
    throw validationError([
      {
        loc: ['query', 'end_date'],
        msg: 'End date must be after start date.',
        type: 'value_error',
        input: query.end_date,
      },
    ]);
  if (span > INTERVAL_LIMITS[query.interval].max_days)
    throw validationError([
      {
        loc: ['query'],
        msg: 'The interval is too big. Try to change the interval or reduce the date range.',
        type: 'value_error',
        input: [query.start_date, query.end_date, query.interval],
      },
    ]);
}

/** The query itself, without Polar's range limits: the API checks them first; benchmarks and tests may go beyond. */
export async function queryMetrics(
  db: Db,
  organizationIds: readonly string[],
  query: MetricsQuery,
): Promise<MetricsResponse> {
  const { starts, end } = periodBoundaries(query.start_date, query.end_date, query.interval, query.timezone);
  const scope: RollupScope = {
    organizations: await organizationCurrencies(db, organizationIds),
    productIds: query.product_id,
    billingTypes: query.billing_type,
    customerIds: query.customer_id,
  };
  const fromHour = Math.floor(starts[0] / HOUR_MS);
  const toHour = Math.ceil(end / HOUR_MS);
  const [hours, before] = await Promise.all([
    sumsByHour(db, scope, fromHour, toHour, METRIC_COLUMNS),
    gaugesBefore(db, scope, fromHour),
  ]);
  return computeMetrics(starts, hours, before, query.metrics ?? METRIC_SLUGS) as MetricsResponse;
}

export function createMetricsService(deps: { db: Db }): MetricsService {
  return {
    async get(actor, query) {
      checkRange(query);
      return queryMetrics(deps.db, organizationFilter(actor, query.organization_id), query);
    },
    limits() {
      return { min_date: MIN_DATE, intervals: INTERVAL_LIMITS };
    },
  };
}
