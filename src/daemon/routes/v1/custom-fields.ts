import type { CoreContext } from '../../../core/context.js';
import {
  customFieldCreateSchema,
  customFieldListQuery,
  customFieldListSchema,
  customFieldSchema,
  customFieldUpdateSchema,
} from '../../../core/custom-fields/schemas.js';
import { idParams } from '../../../core/polar-api/schemas.js';
import { readScopes, writeScopes } from '../../../core/polar-api/scopes.js';
import { deleteById } from './delete-by-id.js';
import type { V1Api } from './operation.js';

const tag = 'custom_fields';

export function registerCustomFieldsRoutes(api: V1Api, core: CoreContext): void {
  const service = core.customFields;
  api.op(
    {
      method: 'get',
      path: '/v1/custom-fields/',
      operationId: 'custom-fields:list',
      tag,
      summary: 'List custom fields',
      scopes: readScopes(tag),
      query: customFieldListQuery,
      response: customFieldListSchema,
    },
    ({ actor, query }) => service.list(actor, query),
  );
  api.op(
    {
      method: 'post',
      path: '/v1/custom-fields/',
      operationId: 'custom-fields:create',
      tag,
      summary: 'Create a custom field (slug unique per organization)',
      scopes: writeScopes(tag),
      body: customFieldCreateSchema,
      response: customFieldSchema,
      status: 201,
    },
    ({ actor, body }) => service.create(actor, body),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/custom-fields/:id',
      operationId: 'custom-fields:get',
      tag,
      summary: 'Get a custom field',
      scopes: readScopes(tag),
      params: idParams,
      response: customFieldSchema,
    },
    ({ actor, params }) => service.get(actor, params.id),
  );
  api.op(
    {
      method: 'patch',
      path: '/v1/custom-fields/:id',
      operationId: 'custom-fields:update',
      tag,
      summary: 'Update a custom field (its type cannot change)',
      scopes: writeScopes(tag),
      params: idParams,
      body: customFieldUpdateSchema,
      response: customFieldSchema,
    },
    ({ actor, params, body }) => service.update(actor, params.id, body),
  );
  deleteById(
    api,
    {
      path: '/v1/custom-fields/:id',
      operationId: 'custom-fields:delete',
      tag,
      summary: 'Delete a custom field (products stop asking for it)',
    },
    (actor, id) => service.delete(actor, id),
  );
}
