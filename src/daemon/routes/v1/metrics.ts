import type { CoreContext } from '../../../core/context.js';
import { metricsLimitsResponse, metricsQuery, metricsResponse } from '../../../core/metrics/schemas.js';
import { readScopes } from '../../../core/polar-api/scopes.js';
import type { V1Api } from './operation.js';

/** Polar's metrics: revenue, orders, subscriptions and checkouts per period, read from the rollups. */
export function registerMetricsRoutes(api: V1Api, core: CoreContext): void {
  api.op(
    {
      method: 'get',
      path: '/v1/metrics/',
      operationId: 'metrics:get',
      tag: 'metrics',
      summary: 'Get metrics about your orders, subscriptions and checkouts (currency values in cents)',
      scopes: readScopes('metrics'),
      query: metricsQuery,
      response: metricsResponse,
    },
    ({ actor, query }) => core.metrics.get(actor, query),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/metrics/limits',
      operationId: 'metrics:limits',
      tag: 'metrics',
      summary: 'Get the interval limits for the metrics endpoint',
      scopes: readScopes('metrics'),
      response: metricsLimitsResponse,
    },
    async () => core.metrics.limits(),
  );
}
