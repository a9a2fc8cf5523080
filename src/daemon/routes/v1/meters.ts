import type { CoreContext } from '../../../core/context.js';
import {
  customerCustomerMeterListSchema,
  customerCustomerMeterSchema,
  customerMeterListQuery,
  customerMeterListSchema,
  customerMeterSchema,
  meterCreateSchema,
  meterListQuery,
  meterListSchema,
  meterQuantitiesQuery,
  meterQuantitiesSchema,
  meterSchema,
  meterUpdateSchema,
  portalMeterListQuery,
} from '../../../core/meters/schemas.js';
import { metadataQuery } from '../../../core/polar-api/metadata-query.js';
import { idParams } from '../../../core/polar-api/schemas.js';
import { readScopes, writeScopes } from '../../../core/polar-api/scopes.js';
import { authenticateCustomer } from '../../auth/customer-auth.js';
import type { V1Api } from './operation.js';

/** Meters, their quantities, customer meters and the portal's meters. */
export function registerMetersRoutes(api: V1Api, core: CoreContext): void {
  const service = core.meters;
  const read = readScopes('meters');
  const write = writeScopes('meters');

  api.op(
    {
      method: 'get',
      path: '/v1/meters/',
      operationId: 'meters:list',
      tag: 'meters',
      summary: 'List meters',
      scopes: read,
      query: meterListQuery,
      response: meterListSchema,
    },
    ({ actor, query, ctx }) => service.list(actor, query, metadataQuery(ctx.query)),
  );
  api.op(
    {
      method: 'post',
      path: '/v1/meters/',
      operationId: 'meters:create',
      tag: 'meters',
      summary: 'Create a meter (events that already exist are counted in the background)',
      scopes: write,
      body: meterCreateSchema,
      response: meterSchema,
      status: 201,
    },
    ({ actor, body }) => service.create(actor, body),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/meters/:id',
      operationId: 'meters:get',
      tag: 'meters',
      summary: 'Get a meter',
      scopes: read,
      params: idParams,
      response: meterSchema,
    },
    ({ actor, params }) => service.get(actor, params.id),
  );
  api.op(
    {
      method: 'patch',
      path: '/v1/meters/:id',
      operationId: 'meters:update',
      tag: 'meters',
      summary: 'Update or archive a meter (a new filter or aggregation counts every event again)',
      scopes: write,
      params: idParams,
      body: meterUpdateSchema,
      response: meterSchema,
    },
    ({ actor, params, body }) => service.update(actor, params.id, body),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/meters/:id/quantities',
      operationId: 'meters:quantities',
      tag: 'meters',
      summary:
        "A meter's quantities over time (hour to year, in a time zone; all customers or some; per-customer aggregation and metadata filters for given customers)",
      scopes: read,
      params: idParams,
      query: meterQuantitiesQuery,
      response: meterQuantitiesSchema,
    },
    ({ actor, params, query, ctx }) => service.quantities(actor, params.id, query, metadataQuery(ctx.query)),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/customer-meters/',
      operationId: 'customer_meters:list',
      tag: 'customer_meters',
      summary: 'List customer meters: consumed, credited and balance',
      scopes: ['customer_meters:read'],
      query: customerMeterListQuery,
      response: customerMeterListSchema,
    },
    ({ actor, query }) => service.listCustomerMeters(actor, query),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/customer-meters/:id',
      operationId: 'customer_meters:get',
      tag: 'customer_meters',
      summary: 'Get a customer meter',
      scopes: ['customer_meters:read'],
      params: idParams,
      response: customerMeterSchema,
    },
    ({ actor, params }) => service.getCustomerMeter(actor, params.id),
  );
  api.publicOp(
    {
      method: 'get',
      path: '/v1/customer-portal/meters/',
      operationId: 'customer_portal:customer_meters:list',
      tag: 'customer_portal',
      summary: "List the signed-in customer's meters",
      query: portalMeterListQuery,
      response: customerCustomerMeterListSchema,
    },
    async ({ ctx, query }) => service.portalList(await authenticateCustomer(core, ctx), query),
  );
  api.publicOp(
    {
      method: 'get',
      path: '/v1/customer-portal/meters/:id',
      operationId: 'customer_portal:customer_meters:get',
      tag: 'customer_portal',
      summary: "Get one of the signed-in customer's meters",
      params: idParams,
      response: customerCustomerMeterSchema,
    },
    async ({ ctx, params }) => service.portalGet(await authenticateCustomer(core, ctx), params.id),
  );
}
