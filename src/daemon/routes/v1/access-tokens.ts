import { z } from 'zod';
import {
  organizationAccessTokenCreateResponseSchema,
  organizationAccessTokenCreateSchema,
  organizationAccessTokenListSchema,
  organizationAccessTokenSchema,
  organizationAccessTokenUpdateSchema,
} from '../../../core/access-tokens/schemas.js';
import type { CoreContext } from '../../../core/context.js';
import { pageQuery, repeated, sortingQuery } from '../../../core/kernel/pagination.js';
import { idParams } from '../../../core/polar-api/schemas.js';
import { readScopes, writeScopes } from '../../../core/polar-api/scopes.js';
import { deleteById } from './delete-by-id.js';
import type { V1Api } from './operation.js';

const tag = 'organization_access_tokens';
const listQuery = z.object({
  organization_id: repeated(z.string()).optional(),
  ...pageQuery,
  sorting: sortingQuery(['created_at', 'comment', 'last_used_at']),
});

export function registerAccessTokenRoutes(api: V1Api, core: CoreContext): void {
  const service = core.accessTokens;
  api.op(
    {
      method: 'get',
      path: '/v1/organization-access-tokens/',
      operationId: 'organization_access_tokens:list',
      tag,
      summary: 'List organization access tokens',
      scopes: readScopes(tag),
      query: listQuery,
      response: organizationAccessTokenListSchema,
    },
    ({ actor, query }) => service.list(actor, query),
  );
  api.op(
    {
      method: 'post',
      path: '/v1/organization-access-tokens/',
      operationId: 'organization_access_tokens:create',
      tag,
      summary: 'Create an organization access token (the token is shown once)',
      scopes: writeScopes(tag),
      body: organizationAccessTokenCreateSchema,
      response: organizationAccessTokenCreateResponseSchema,
      status: 201,
    },
    ({ actor, body }) => service.create(actor, body),
  );
  api.op(
    {
      method: 'patch',
      path: '/v1/organization-access-tokens/:id',
      operationId: 'organization_access_tokens:update',
      tag,
      summary: 'Update an organization access token',
      scopes: writeScopes(tag),
      params: idParams,
      body: organizationAccessTokenUpdateSchema,
      response: organizationAccessTokenSchema,
    },
    ({ actor, params, body }) => service.update(actor, params.id, body),
  );
  deleteById(
    api,
    {
      path: '/v1/organization-access-tokens/:id',
      operationId: 'organization_access_tokens:delete',
      tag,
      summary: 'Revoke an organization access token',
    },
    (actor, id) => service.delete(actor, id),
  );
}
