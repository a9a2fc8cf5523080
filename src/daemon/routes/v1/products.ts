import { z } from 'zod';
import type { CoreContext } from '../../../core/context.js';
import { pageQuery, repeated, sortingQuery, uuidFilter } from '../../../core/kernel/pagination.js';
import { metadataQuery } from '../../../core/polar-api/metadata-query.js';
import { idParams } from '../../../core/polar-api/schemas.js';
import { readScopes, writeScopes } from '../../../core/polar-api/scopes.js';
import {
  productBenefitsUpdateSchema,
  productCreateSchema,
  productListSchema,
  productSchema,
  productUpdateSchema,
  VISIBILITIES,
} from '../../../core/products/schemas.js';
import type { V1Api } from './operation.js';

const tag = 'products';

/** Pydantic's reading of a boolean query parameter. */
const booleanQuery = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], { message: 'Input should be a valid boolean' })
  .transform((value) => ['true', '1', 'yes', 'on'].includes(value));

const listQuery = z.object({
  id: uuidFilter().optional(),
  organization_id: repeated(z.string()).optional(),
  query: z.string().max(255).optional(),
  is_archived: booleanQuery.optional(),
  is_recurring: booleanQuery.optional(),
  benefit_id: uuidFilter().optional(),
  visibility: repeated(z.enum(VISIBILITIES)).optional(),
  ...pageQuery,
  sorting: sortingQuery(['created_at', 'name', 'price_amount_type', 'price_amount']),
});

export function registerProductsRoutes(api: V1Api, core: CoreContext): void {
  const service = core.products;
  api.op(
    {
      method: 'get',
      path: '/v1/products/',
      operationId: 'products:list',
      tag,
      summary: 'List products (filter metadata with metadata[key]=value)',
      scopes: readScopes(tag),
      query: listQuery,
      response: productListSchema,
    },
    ({ actor, query, ctx }) => {
      const metadata = metadataQuery(ctx.query as Record<string, string | string[] | undefined>);
      return service.list(actor, { ...query, metadata: Object.keys(metadata).length > 0 ? metadata : undefined });
    },
  );
  api.op(
    {
      method: 'post',
      path: '/v1/products/',
      operationId: 'products:create',
      tag,
      summary: 'Create a product with its prices',
      scopes: writeScopes(tag),
      body: productCreateSchema,
      response: productSchema,
      status: 201,
    },
    ({ actor, body }) => service.create(actor, body),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/products/:id',
      operationId: 'products:get',
      tag,
      summary: 'Get a product',
      scopes: readScopes(tag),
      params: idParams,
      response: productSchema,
    },
    ({ actor, params }) => service.get(actor, params.id),
  );
  api.op(
    {
      method: 'patch',
      path: '/v1/products/:id',
      operationId: 'products:update',
      tag,
      summary: 'Update a product; prices left out of `prices` are archived, never deleted',
      scopes: writeScopes(tag),
      params: idParams,
      body: productUpdateSchema,
      response: productSchema,
    },
    ({ actor, params, body }) => service.update(actor, params.id, body),
  );
  api.op(
    {
      method: 'post',
      path: '/v1/products/:id/benefits',
      operationId: 'products:update_benefits',
      tag,
      summary: "Replace a product's benefits",
      scopes: writeScopes(tag),
      params: idParams,
      body: productBenefitsUpdateSchema,
      response: productSchema,
    },
    ({ actor, params, body }) => service.updateBenefits(actor, params.id, body.benefits),
  );
}
