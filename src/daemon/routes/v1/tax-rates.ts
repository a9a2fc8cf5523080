import { z } from 'zod';
import type { CoreContext } from '../../../core/context.js';
import { pageQuery, repeated, sortingQuery } from '../../../core/kernel/pagination.js';
import { idParams } from '../../../core/polar-api/schemas.js';
import { readScopes, writeScopes } from '../../../core/polar-api/scopes.js';
import {
  taxRateCreateSchema,
  taxRateListSchema,
  taxRateSchema,
  taxRateUpdateSchema,
} from '../../../core/tax/schemas.js';
import type { V1Api } from './operation.js';

// Till's own resource: merchant settings, so the organizations scopes cover it.
const tag = 'tax_rates';
const read = readScopes('organizations');
const write = writeScopes('organizations');
const listQuery = z.object({
  organization_id: repeated(z.string()).optional(),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/)
    .optional(),
  ...pageQuery,
  sorting: sortingQuery(['created_at', 'country', 'basis_points']),
});

export function registerTaxRateRoutes(api: V1Api, core: CoreContext): void {
  const service = core.tax;
  api.op(
    {
      method: 'get',
      path: '/v1/tax-rates/',
      operationId: 'tax_rates:list',
      tag,
      summary: 'List tax rates',
      scopes: read,
      query: listQuery,
      response: taxRateListSchema,
    },
    ({ actor, query }) => service.list(actor, query),
  );
  api.op(
    {
      method: 'post',
      path: '/v1/tax-rates/',
      operationId: 'tax_rates:create',
      tag,
      summary: 'Create a tax rate for a country or a state',
      scopes: write,
      body: taxRateCreateSchema,
      response: taxRateSchema,
      status: 201,
    },
    ({ actor, body }) => service.create(actor, body),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/tax-rates/:id',
      operationId: 'tax_rates:get',
      tag,
      summary: 'Get a tax rate',
      scopes: read,
      params: idParams,
      response: taxRateSchema,
    },
    ({ actor, params }) => service.get(actor, params.id),
  );
  api.op(
    {
      method: 'patch',
      path: '/v1/tax-rates/:id',
      operationId: 'tax_rates:update',
      tag,
      summary: 'Update a tax rate',
      scopes: write,
      params: idParams,
      body: taxRateUpdateSchema,
      response: taxRateSchema,
    },
    ({ actor, params, body }) => service.update(actor, params.id, body),
  );
  api.op(
    {
      method: 'delete',
      path: '/v1/tax-rates/:id',
      operationId: 'tax_rates:delete',
      tag,
      summary: 'Delete a tax rate',
      scopes: write,
      params: idParams,
      status: 204,
    },
    async ({ actor, params }) => {
      await service.delete(actor, params.id);
      return undefined;
    },
  );
}
