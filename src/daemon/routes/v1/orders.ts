import type { CoreContext } from '../../../core/context.js';
import { metadataQuery } from '../../../core/polar-api/metadata-query.js';
import { idParams } from '../../../core/polar-api/schemas.js';
import { readScopes, writeScopes } from '../../../core/polar-api/scopes.js';
import { orderListQuery, orderUpdateSchema } from '../../../core/orders/inputs.js';
import { orderListSchema, orderSchema } from '../../../core/orders/schemas.js';
import type { V1Api } from './operation.js';

const tag = 'orders';

export function registerOrdersRoutes(api: V1Api, core: CoreContext): void {
  const service = core.orders;
  api.op(
    {
      method: 'get',
      path: '/v1/orders/',
      operationId: 'orders:list',
      tag,
      summary:
        'List orders (filters: organization_id, product_id, product_billing_type, customer_id, external_customer_id, checkout_id, subscription_id, discount_id, status, billing_reason, metadata[key]=value)',
      scopes: readScopes(tag),
      query: orderListQuery,
      response: orderListSchema,
    },
    ({ actor, query, ctx }) => service.list(actor, query, metadataQuery(ctx.query)),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/orders/:id',
      operationId: 'orders:get',
      tag,
      summary: 'Get an order',
      scopes: readScopes(tag),
      params: idParams,
      response: orderSchema,
    },
    ({ actor, params }) => service.get(actor, params.id),
  );
  api.op(
    {
      method: 'patch',
      path: '/v1/orders/:id',
      operationId: 'orders:update',
      tag,
      summary: "Update an order's billing name and address",
      scopes: writeScopes(tag),
      params: idParams,
      body: orderUpdateSchema,
      response: orderSchema,
    },
    ({ actor, params, body }) => service.update(actor, params.id, body),
  );
}
