import {
  benefitCreateSchema,
  benefitGrantListSchema,
  benefitListQuery,
  benefitListSchema,
  benefitSchema,
  benefitUpdateSchema,
} from '../../../core/benefits/schemas.js';
import { benefitGrantsOfBenefitQuery } from '../../../core/benefit-grants/schemas.js';
import type { CoreContext } from '../../../core/context.js';
import { idParams } from '../../../core/polar-api/schemas.js';
import { readScopes, writeScopes } from '../../../core/polar-api/scopes.js';
import { deleteById } from './delete-by-id.js';
import type { V1Api } from './operation.js';

const tag = 'benefits';

export function registerBenefitsRoutes(api: V1Api, core: CoreContext): void {
  const service = core.benefits;
  api.op(
    {
      method: 'get',
      path: '/v1/benefits/',
      operationId: 'benefits:list',
      tag,
      summary: 'List benefits',
      scopes: readScopes(tag),
      query: benefitListQuery,
      response: benefitListSchema,
    },
    ({ actor, query }) => service.list(actor, query),
  );
  api.op(
    {
      method: 'post',
      path: '/v1/benefits/',
      operationId: 'benefits:create',
      tag,
      summary: 'Create a benefit',
      scopes: writeScopes(tag),
      body: benefitCreateSchema,
      response: benefitSchema,
      status: 201,
    },
    ({ actor, body }) => service.create(actor, body),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/benefits/:id',
      operationId: 'benefits:get',
      tag,
      summary: 'Get a benefit',
      scopes: readScopes(tag),
      params: idParams,
      response: benefitSchema,
    },
    ({ actor, params }) => service.get(actor, params.id),
  );
  api.op(
    {
      method: 'patch',
      path: '/v1/benefits/:id',
      operationId: 'benefits:update',
      tag,
      summary: 'Update a benefit (its type cannot change)',
      scopes: writeScopes(tag),
      params: idParams,
      body: benefitUpdateSchema,
      response: benefitSchema,
    },
    ({ actor, params, body }) => service.update(actor, params.id, body),
  );
  deleteById(
    api,
    {
      path: '/v1/benefits/:id',
      operationId: 'benefits:delete',
      tag,
      summary: 'Delete a benefit (refused while it is not deletable or still on a product)',
    },
    (actor, id) => service.delete(actor, id),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/benefits/:id/grants',
      operationId: 'benefits:grants',
      tag,
      summary: 'List the grants of a benefit',
      scopes: readScopes(tag),
      params: idParams,
      query: benefitGrantsOfBenefitQuery,
      response: benefitGrantListSchema,
    },
    ({ actor, params, query }) => core.benefitGrants.listOfBenefit(actor, params.id, query),
  );
}
