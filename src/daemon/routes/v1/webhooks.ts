import { z } from 'zod';
import type { CoreContext } from '../../../core/context.js';
import { fieldError } from '../../../core/polar-api/errors.js';
import { idParams } from '../../../core/polar-api/schemas.js';
import { readScopes, writeScopes } from '../../../core/polar-api/scopes.js';
import {
  deliveryListQuery,
  endpointListQuery,
  eventStreamQuery,
  webhookDeliveryListSchema,
  webhookEndpointCreateSchema,
  webhookEndpointListSchema,
  webhookEndpointSchema,
  webhookEndpointUpdateSchema,
  webhookEventSchema,
} from '../../../core/webhooks/schemas.js';
import { deleteById } from './delete-by-id.js';
import type { V1Api } from './operation.js';

const tag = 'webhooks';

export function registerWebhooksRoutes(api: V1Api, core: CoreContext): void {
  const { endpoints, log } = core.webhooks;
  api.op(
    {
      method: 'get',
      path: '/v1/webhooks/endpoints',
      operationId: 'webhooks:list_webhook_endpoints',
      tag,
      summary: 'List webhook endpoints',
      scopes: readScopes(tag),
      query: endpointListQuery,
      response: webhookEndpointListSchema,
    },
    ({ actor, query }) => endpoints.list(actor, query),
  );
  api.op(
    {
      method: 'post',
      path: '/v1/webhooks/endpoints',
      operationId: 'webhooks:create_webhook_endpoint',
      tag,
      summary: 'Create a webhook endpoint (with a new whsec_ signing secret)',
      scopes: writeScopes(tag),
      body: webhookEndpointCreateSchema,
      response: webhookEndpointSchema,
      status: 201,
    },
    ({ actor, body }) => endpoints.create(actor, body),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/webhooks/endpoints/:id',
      operationId: 'webhooks:get_webhook_endpoint',
      tag,
      summary: 'Get a webhook endpoint',
      scopes: readScopes(tag),
      params: idParams,
      response: webhookEndpointSchema,
    },
    ({ actor, params }) => endpoints.get(actor, params.id),
  );
  api.op(
    {
      method: 'patch',
      path: '/v1/webhooks/endpoints/:id',
      operationId: 'webhooks:update_webhook_endpoint',
      tag,
      summary: 'Update a webhook endpoint',
      scopes: writeScopes(tag),
      params: idParams,
      body: webhookEndpointUpdateSchema,
      response: webhookEndpointSchema,
    },
    ({ actor, params, body }) => endpoints.update(actor, params.id, body),
  );
  deleteById(
    api,
    {
      path: '/v1/webhooks/endpoints/:id',
      operationId: 'webhooks:delete_webhook_endpoint',
      tag,
      summary: 'Delete a webhook endpoint',
    },
    (actor, id) => endpoints.delete(actor, id),
  );
  api.op(
    {
      method: 'patch',
      path: '/v1/webhooks/endpoints/:id/secret',
      operationId: 'webhooks:reset_webhook_endpoint_secret',
      tag,
      summary: 'Rotate the signing secret (the old one keeps signing for 24 hours)',
      scopes: writeScopes(tag),
      params: idParams,
      response: webhookEndpointSchema,
    },
    ({ actor, params }) => endpoints.resetSecret(actor, params.id),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/webhooks/deliveries',
      operationId: 'webhooks:list_webhook_deliveries',
      tag,
      summary: 'List webhook deliveries (every attempt)',
      scopes: readScopes(tag),
      query: deliveryListQuery,
      response: webhookDeliveryListSchema,
    },
    ({ actor, query }) => log.list(actor, query),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/webhooks/events/stream',
      operationId: 'webhooks:stream_events',
      tag,
      summary: "Stream the organization's events as server-sent events (resume with Last-Event-ID)",
      scopes: readScopes(tag),
      query: eventStreamQuery,
      responseDescription:
        'text/event-stream: `id:` the event sequence number, `event:` its type, `data:` the webhook body',
    },
    async ({ actor, query, ctx }) => {
      const header = ctx.get('last-event-id');
      if (header && (!/^\d+$/.test(header) || Number(header) > Number.MAX_SAFE_INTEGER))
        throw fieldError(['header', 'last-event-id'], 'Last-Event-ID must be an id this stream sent');
      const resume = header || query.last_event_id;
      const stream = await core.webhooks.stream(actor, {
        organizationId: query.organization_id,
        lastEventId: resume ? Number(resume) : null,
      });
      // A stream lives as long as its client: no idle timeout, no buffering proxies.
      ctx.req.socket.setTimeout(0);
      ctx.req.socket.setNoDelay(true);
      ctx.set('Cache-Control', 'no-cache');
      ctx.set('X-Accel-Buffering', 'no');
      ctx.type = 'text/event-stream';
      ctx.status = 200;
      ctx.body = stream;
      ctx.req.once('close', () => stream.destroy());
      return undefined;
    },
  );
  api.op(
    {
      method: 'get',
      path: '/v1/webhooks/events/:id',
      operationId: 'webhooks:get_webhook_event',
      tag,
      summary: 'Get a webhook event',
      scopes: readScopes(tag),
      params: idParams,
      response: webhookEventSchema,
    },
    ({ actor, params }) => log.getEvent(actor, params.id),
  );
  api.op(
    {
      method: 'post',
      path: '/v1/webhooks/events/:id/redeliver',
      operationId: 'webhooks:redeliver_webhook_event',
      tag,
      summary: 'Send a webhook event again (same webhook-id), even if it succeeded',
      scopes: writeScopes(tag),
      params: idParams,
      response: z.object({}),
      status: 202,
    },
    async ({ actor, params }) => {
      await log.redeliver(actor, params.id);
      return {};
    },
  );
}
