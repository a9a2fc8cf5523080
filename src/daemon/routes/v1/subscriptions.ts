import type { CoreContext } from '../../../core/context.js';
import { metadataQuery } from '../../../core/polar-api/metadata-query.js';
import { idParams } from '../../../core/polar-api/schemas.js';
import { readScopes, writeScopes } from '../../../core/polar-api/scopes.js';
import {
  isSubscriptionChange,
  subscriptionListQuery,
  subscriptionUpdateSchema,
} from '../../../core/subscriptions/inputs.js';
import { subscriptionListSchema, subscriptionSchema } from '../../../core/subscriptions/schemas.js';
import type { V1Api } from './operation.js';

const tag = 'subscriptions';

export function registerSubscriptionsRoutes(api: V1Api, core: CoreContext): void {
  const service = core.subscriptions;
  api.op(
    {
      method: 'get',
      path: '/v1/subscriptions/',
      operationId: 'subscriptions:list',
      tag,
      summary:
        'List subscriptions (filters: organization_id, product_id, customer_id, external_customer_id, discount_id, active, status, cancel_at_period_end, metadata[key]=value)',
      scopes: readScopes(tag),
      query: subscriptionListQuery,
      response: subscriptionListSchema,
    },
    ({ actor, query, ctx }) => service.list(actor, query, metadataQuery(ctx.query)),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/subscriptions/:id',
      operationId: 'subscriptions:get',
      tag,
      summary: 'Get a subscription',
      scopes: readScopes(tag),
      params: idParams,
      response: subscriptionSchema,
    },
    ({ actor, params }) => service.get(actor, params.id),
  );
  api.op(
    {
      method: 'patch',
      path: '/v1/subscriptions/:id',
      operationId: 'subscriptions:update',
      tag,
      summary:
        'Cancel at the period end (cancel_at_period_end), revoke now (revoke: true), change plan (product_id, proration_behavior), clear a pending update (pending_update: null), pause (pause_at_period_end, resumes_at) or resume (resume: true)',
      scopes: writeScopes(tag),
      params: idParams,
      body: subscriptionUpdateSchema,
      response: subscriptionSchema,
    },
    ({ actor, params, body }) =>
      isSubscriptionChange(body)
        ? core.subscriptionChanges.update(actor, params.id, body)
        : service.update(actor, params.id, body),
  );
  api.op(
    {
      method: 'post',
      path: '/v1/subscriptions/:id/retry-payment',
      operationId: 'subscriptions:retry_payment',
      tag,
      summary:
        "Retry a past-due subscription's unpaid renewal now (Till); the charge runs at once through the dunning rules",
      scopes: writeScopes(tag),
      params: idParams,
      response: subscriptionSchema,
      status: 202,
    },
    ({ actor, params }) => core.retryPayment(actor, params.id),
  );
  api.op(
    {
      method: 'delete',
      path: '/v1/subscriptions/:id',
      operationId: 'subscriptions:revoke',
      tag,
      summary: 'Revoke a subscription now',
      scopes: writeScopes(tag),
      params: idParams,
      response: subscriptionSchema,
    },
    ({ actor, params }) => service.revoke(actor, params.id),
  );
}
