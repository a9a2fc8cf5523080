import { z } from 'zod';
import {
  checkoutConfirmSchema,
  checkoutCreateSchema,
  checkoutListSchema,
  checkoutPublicConfirmedSchema,
  checkoutPublicSchema,
  checkoutSchema,
  checkoutUpdatePublicSchema,
  checkoutUpdateSchema,
  CHECKOUT_STATUSES,
} from '../../../core/checkouts/schemas.js';
import type { CoreContext } from '../../../core/context.js';
import { pageQuery, repeated, sortingQuery, uuidFilter } from '../../../core/kernel/pagination.js';
import { idParams } from '../../../core/polar-api/schemas.js';
import { readScopes, writeScopes } from '../../../core/polar-api/scopes.js';
import type { V1Api } from './operation.js';

const tag = 'checkouts';
const listQuery = z.object({
  organization_id: repeated(z.string()).optional(),
  product_id: uuidFilter().optional(),
  customer_id: uuidFilter().optional(),
  status: repeated(z.enum(CHECKOUT_STATUSES)).optional(),
  query: z.string().max(256).optional(),
  ...pageQuery,
  sorting: sortingQuery(['created_at', 'expires_at', 'status']),
});
const clientParams = z.object({ client_secret: z.string().min(1).max(128) });

export function registerCheckoutRoutes(api: V1Api, core: CoreContext): void {
  const service = core.checkouts;
  api.op(
    {
      method: 'get',
      path: '/v1/checkouts/',
      operationId: 'checkouts:list',
      tag,
      summary: 'List checkout sessions',
      scopes: readScopes(tag),
      query: listQuery,
      response: checkoutListSchema,
    },
    ({ actor, query }) => service.list(actor, query),
  );
  api.op(
    {
      method: 'post',
      path: '/v1/checkouts/',
      operationId: 'checkouts:create',
      tag,
      summary: 'Create a checkout session',
      scopes: writeScopes(tag),
      body: checkoutCreateSchema,
      response: checkoutSchema,
      status: 201,
    },
    ({ actor, body }) => service.create(actor, body),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/checkouts/:id',
      operationId: 'checkouts:get',
      tag,
      summary: 'Get a checkout session',
      scopes: readScopes(tag),
      params: idParams,
      response: checkoutSchema,
    },
    ({ actor, params }) => service.get(actor, params.id),
  );
  api.op(
    {
      method: 'patch',
      path: '/v1/checkouts/:id',
      operationId: 'checkouts:update',
      tag,
      summary: 'Update a checkout session',
      scopes: writeScopes(tag),
      params: idParams,
      body: checkoutUpdateSchema,
      response: checkoutSchema,
    },
    ({ actor, params, body }) => service.update(actor, params.id, body),
  );
  // The buyer's routes: the client secret is the credential.
  api.publicOp(
    {
      method: 'get',
      path: '/v1/checkouts/client/:client_secret',
      operationId: 'checkouts:client_get',
      tag,
      summary: 'Get a checkout session by client secret',
      params: clientParams,
      response: checkoutPublicSchema,
    },
    ({ params }) => service.clientGet(params.client_secret),
  );
  api.publicOp(
    {
      method: 'patch',
      path: '/v1/checkouts/client/:client_secret',
      operationId: 'checkouts:client_update',
      tag,
      summary: 'Update a checkout session by client secret',
      params: clientParams,
      body: checkoutUpdatePublicSchema,
      response: checkoutPublicSchema,
    },
    ({ params, body }) => service.clientUpdate(params.client_secret, body),
  );
  api.publicOp(
    {
      method: 'post',
      path: '/v1/checkouts/client/:client_secret/confirm',
      operationId: 'checkouts:client_confirm',
      tag,
      summary: 'Confirm a checkout session and pay (sandbox: confirmation_token_id names a test card, e.g. tok_visa)',
      params: clientParams,
      body: checkoutConfirmSchema,
      response: checkoutPublicConfirmedSchema,
    },
    ({ params, body }) => core.confirmCheckout(params.client_secret, body),
  );
}
