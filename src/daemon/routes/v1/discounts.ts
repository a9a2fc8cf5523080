import { z } from 'zod';
import type { CoreContext } from '../../../core/context.js';
import {
  discountCreateSchema,
  discountListSchema,
  discountSchema,
  discountUpdateSchema,
} from '../../../core/discounts/schemas.js';
import { pageQuery, repeated, sortingQuery } from '../../../core/kernel/pagination.js';
import { idParams } from '../../../core/polar-api/schemas.js';
import { readScopes, writeScopes } from '../../../core/polar-api/scopes.js';
import { deleteById } from './delete-by-id.js';
import type { V1Api } from './operation.js';

const tag = 'discounts';
const listQuery = z.object({
  organization_id: repeated(z.string()).optional(),
  query: z.string().max(256).optional(),
  ...pageQuery,
  sorting: sortingQuery(['created_at', 'name', 'code', 'redemptions_count', 'ends_at']),
});

export function registerDiscountsRoutes(api: V1Api, core: CoreContext): void {
  const service = core.discounts;
  api.op(
    {
      method: 'get',
      path: '/v1/discounts/',
      operationId: 'discounts:list',
      tag,
      summary: 'List discounts',
      scopes: readScopes(tag),
      query: listQuery,
      response: discountListSchema,
    },
    ({ actor, query }) => service.list(actor, query),
  );
  api.op(
    {
      method: 'post',
      path: '/v1/discounts/',
      operationId: 'discounts:create',
      tag,
      summary: 'Create a discount',
      scopes: writeScopes(tag),
      body: discountCreateSchema,
      response: discountSchema,
      status: 201,
    },
    ({ actor, body }) => service.create(actor, body),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/discounts/:id',
      operationId: 'discounts:get',
      tag,
      summary: 'Get a discount',
      scopes: readScopes(tag),
      params: idParams,
      response: discountSchema,
    },
    ({ actor, params }) => service.get(actor, params.id),
  );
  api.op(
    {
      method: 'patch',
      path: '/v1/discounts/:id',
      operationId: 'discounts:update',
      tag,
      summary: 'Update a discount',
      scopes: writeScopes(tag),
      params: idParams,
      body: discountUpdateSchema,
      response: discountSchema,
    },
    ({ actor, params, body }) => service.update(actor, params.id, body),
  );
  deleteById(
    api,
    {
      path: '/v1/discounts/:id',
      operationId: 'discounts:delete',
      tag,
      summary: 'Delete a discount (kept for the orders that used it)',
    },
    (actor, id) => service.delete(actor, id),
  );
}
