import type { CoreContext } from '../../../core/context.js';
import type { CustomerRef } from '../../../core/customers/service.js';
import {
  customerCreateSchema,
  customerListQuery,
  customerListSchema,
  customerSchema,
  customerStateSchema,
  customerUpdateExternalSchema,
  customerUpdateSchema,
  deleteQuery,
  externalIdParams,
} from '../../../core/customers/schemas.js';
import { metadataQuery } from '../../../core/polar-api/metadata-query.js';
import { idParams } from '../../../core/polar-api/schemas.js';
import { readScopes, writeScopes } from '../../../core/polar-api/scopes.js';
import type { V1Api } from './operation.js';

const tag = 'customers';

export function registerCustomersRoutes(api: V1Api, core: CoreContext): void {
  const service = core.customers;
  const read = readScopes(tag);
  const write = writeScopes(tag);

  api.op(
    {
      method: 'get',
      path: '/v1/customers/',
      operationId: 'customers:list',
      tag,
      summary: 'List customers (filters: organization_id, email, query, metadata[key]=value)',
      scopes: read,
      query: customerListQuery,
      response: customerListSchema,
    },
    ({ actor, query, ctx }) => service.list(actor, query, metadataQuery(ctx.query)),
  );
  api.op(
    {
      method: 'post',
      path: '/v1/customers/',
      operationId: 'customers:create',
      tag,
      summary: 'Create a customer',
      scopes: write,
      body: customerCreateSchema,
      response: customerSchema,
      status: 201,
    },
    ({ actor, body }) => service.create(actor, body),
  );

  // The same four operations by Till's id and by the merchant's external id.
  const byId = { params: idParams, ref: (params: { id: string }): CustomerRef => ({ id: params.id }) };
  const byExternal = {
    params: externalIdParams,
    ref: (params: { external_id: string }): CustomerRef => ({ externalId: params.external_id }),
  };

  api.op(
    {
      method: 'get',
      path: '/v1/customers/:id',
      operationId: 'customers:get',
      tag,
      summary: 'Get a customer',
      scopes: read,
      params: byId.params,
      response: customerSchema,
    },
    ({ actor, params }) => service.get(actor, byId.ref(params)),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/customers/external/:external_id',
      operationId: 'customers:get_external',
      tag,
      summary: 'Get a customer by external id',
      scopes: read,
      params: byExternal.params,
      response: customerSchema,
    },
    ({ actor, params }) => service.get(actor, byExternal.ref(params)),
  );
  api.op(
    {
      method: 'patch',
      path: '/v1/customers/:id',
      operationId: 'customers:update',
      tag,
      summary: 'Update a customer (external_id can be set once)',
      scopes: write,
      params: byId.params,
      body: customerUpdateSchema,
      response: customerSchema,
    },
    ({ actor, params, body }) => service.update(actor, byId.ref(params), body),
  );
  api.op(
    {
      method: 'patch',
      path: '/v1/customers/external/:external_id',
      operationId: 'customers:update_external',
      tag,
      summary: 'Update a customer by external id',
      scopes: write,
      params: byExternal.params,
      body: customerUpdateExternalSchema,
      response: customerSchema,
    },
    ({ actor, params, body }) => service.update(actor, byExternal.ref(params), body),
  );
  api.op(
    {
      method: 'delete',
      path: '/v1/customers/:id',
      operationId: 'customers:delete',
      tag,
      summary: 'Delete a customer (soft delete; anonymize=true also erases personal data)',
      scopes: write,
      params: byId.params,
      query: deleteQuery,
      status: 204,
    },
    async ({ actor, params, query }) => {
      await service.delete(actor, byId.ref(params), query);
      return undefined;
    },
  );
  api.op(
    {
      method: 'delete',
      path: '/v1/customers/external/:external_id',
      operationId: 'customers:delete_external',
      tag,
      summary: 'Delete a customer by external id',
      scopes: write,
      params: byExternal.params,
      query: deleteQuery,
      status: 204,
    },
    async ({ actor, params, query }) => {
      await service.delete(actor, byExternal.ref(params), query);
      return undefined;
    },
  );
  api.op(
    {
      method: 'get',
      path: '/v1/customers/:id/state',
      operationId: 'customers:get_state',
      tag,
      summary: "Get a customer's state: active subscriptions, granted benefits, meters",
      scopes: read,
      params: byId.params,
      response: customerStateSchema,
    },
    ({ actor, params }) => service.state(actor, byId.ref(params)),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/customers/external/:external_id/state',
      operationId: 'customers:get_state_external',
      tag,
      summary: "Get a customer's state by external id",
      scopes: read,
      params: byExternal.params,
      response: customerStateSchema,
    },
    ({ actor, params }) => service.state(actor, byExternal.ref(params)),
  );
}
