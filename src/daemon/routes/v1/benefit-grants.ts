import {
  benefitGrantListQuery,
  benefitGrantListSchema,
  customerBenefitGrantListQuery,
  customerBenefitGrantListSchema,
  customerBenefitGrantSchema,
} from '../../../core/benefit-grants/schemas.js';
import type { CoreContext } from '../../../core/context.js';
import { idParams } from '../../../core/polar-api/schemas.js';
import { readScopes } from '../../../core/polar-api/scopes.js';
import { authenticateCustomer } from '../../auth/customer-auth.js';
import type { V1Api } from './operation.js';

/** Benefit grants: the merchant's list of every grant, and the signed-in customer's own in the portal. */
export function registerBenefitGrantRoutes(api: V1Api, core: CoreContext): void {
  const service = core.benefitGrants;
  const who = (ctx: Parameters<typeof authenticateCustomer>[1]) => authenticateCustomer(core, ctx);
  api.op(
    {
      method: 'get',
      path: '/v1/benefit-grants/',
      operationId: 'benefit-grants:list',
      tag: 'benefit-grants',
      summary: 'List benefit grants',
      scopes: readScopes('benefits'),
      query: benefitGrantListQuery,
      response: benefitGrantListSchema,
    },
    ({ actor, query }) => service.list(actor, query),
  );
  api.publicOp(
    {
      method: 'get',
      path: '/v1/customer-portal/benefit-grants/',
      operationId: 'customer_portal:benefit-grants:list',
      tag: 'customer_portal',
      summary: "List the signed-in customer's benefit grants",
      query: customerBenefitGrantListQuery,
      response: customerBenefitGrantListSchema,
    },
    async ({ ctx, query }) => service.listForCustomer(await who(ctx), query),
  );
  api.publicOp(
    {
      method: 'get',
      path: '/v1/customer-portal/benefit-grants/:id',
      operationId: 'customer_portal:benefit-grants:get',
      tag: 'customer_portal',
      summary: "Get one of the signed-in customer's benefit grants",
      params: idParams,
      response: customerBenefitGrantSchema,
    },
    async ({ ctx, params }) => service.getForCustomer(await who(ctx), params.id),
  );
}
