import { z } from 'zod';
import type { CoreContext } from '../../../core/context.js';
import { pageQuery, sortingQuery } from '../../../core/kernel/pagination.js';
import { organizationIdParams } from '../../../core/polar-api/schemas.js';
import { readScopes, writeScopes } from '../../../core/polar-api/scopes.js';
import {
  organizationCreateSchema,
  organizationListSchema,
  organizationSchema,
  organizationUpdateSchema,
} from '../../../core/organizations/merchant-schemas.js';
import { createMerchantOrganizationService } from '../../../core/organizations/merchant-service.js';
import type { V1Api } from './operation.js';

const tag = 'organizations';
const listQuery = z.object({
  slug: z.string().max(255).optional(),
  ...pageQuery,
  sorting: sortingQuery(['created_at', 'slug', 'name'], ['created_at']),
});

/** Polar's merchant view of the organizations Better Auth's organization plugin manages (the same rows). */
export function registerOrganizationsRoutes(api: V1Api, core: CoreContext): void {
  const service = createMerchantOrganizationService({
    db: core.db,
    clock: core.clock,
    organizations: core.organizations,
    changing: core.changing,
    readCache: core.readCache,
  });
  api.op(
    {
      method: 'get',
      path: '/v1/organizations/',
      operationId: 'organizations:list',
      tag,
      summary: 'List the organizations the caller may read',
      scopes: readScopes(tag),
      query: listQuery,
      response: organizationListSchema,
    },
    ({ actor, query }) => service.list(actor, query),
  );
  api.op(
    {
      method: 'post',
      path: '/v1/organizations/',
      operationId: 'organizations:create',
      tag,
      summary: 'Create an organization, with the calling user as its owner (not for organization access tokens)',
      scopes: writeScopes(tag),
      body: organizationCreateSchema,
      response: organizationSchema,
      status: 201,
    },
    ({ actor, body }) => service.create(actor, body),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/organizations/:id',
      operationId: 'organizations:get',
      tag,
      summary: 'Get an organization',
      scopes: readScopes(tag),
      params: organizationIdParams,
      response: organizationSchema,
    },
    ({ actor, params }) => service.get(actor, params.id),
  );
  api.op(
    {
      method: 'patch',
      path: '/v1/organizations/:id',
      operationId: 'organizations:update',
      tag,
      summary: 'Update an organization’s merchant settings',
      scopes: writeScopes(tag),
      params: organizationIdParams,
      body: organizationUpdateSchema,
      response: organizationSchema,
    },
    ({ actor, params, body }) => service.update(actor, params.id, body),
  );
}
