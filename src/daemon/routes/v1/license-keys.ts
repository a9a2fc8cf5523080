import type { CoreContext } from '../../../core/context.js';
import {
  activationParams,
  customerLicenseKeyListQuery,
  licenseKeyActivateSchema,
  licenseKeyActivationReadSchema,
  licenseKeyDeactivateSchema,
  licenseKeyListQuery,
  licenseKeyListSchema,
  licenseKeyReadSchema,
  licenseKeyUpdateSchema,
  licenseKeyValidateSchema,
  licenseKeyWithActivationsSchema,
  validatedLicenseKeySchema,
} from '../../../core/license-keys/schemas.js';
import { idParams } from '../../../core/polar-api/schemas.js';
import { readScopes, writeScopes } from '../../../core/polar-api/scopes.js';
import { authenticateCustomer } from '../../auth/customer-auth.js';
import type { V1Api } from './operation.js';

const tag = 'license_keys';

/**
 * License keys: the merchant's (/v1/license-keys), the customer's in the portal, and the public validate, activate
 * and deactivate that the merchant's software calls with a key and an organization id (no token).
 */
export function registerLicenseKeyRoutes(api: V1Api, core: CoreContext): void {
  const service = core.licenseKeys;
  const who = (ctx: Parameters<typeof authenticateCustomer>[1]) => authenticateCustomer(core, ctx);
  api.op(
    {
      method: 'get',
      path: '/v1/license-keys/',
      operationId: 'license_keys:list',
      tag,
      summary: 'List license keys',
      scopes: readScopes(tag),
      query: licenseKeyListQuery,
      response: licenseKeyListSchema,
    },
    ({ actor, query }) => service.list(actor, query),
  );
  api.op(
    {
      method: 'post',
      path: '/v1/license-keys/validate',
      operationId: 'license_keys:validate',
      tag,
      summary: 'Validate a license key',
      scopes: writeScopes(tag),
      body: licenseKeyValidateSchema,
      response: validatedLicenseKeySchema,
    },
    ({ actor, body }) => service.validate(body, actor),
  );
  api.op(
    {
      method: 'post',
      path: '/v1/license-keys/activate',
      operationId: 'license_keys:activate',
      tag,
      summary: 'Activate a license key instance',
      scopes: writeScopes(tag),
      body: licenseKeyActivateSchema,
      response: licenseKeyActivationReadSchema,
    },
    ({ actor, body }) => service.activate(body, actor),
  );
  api.op(
    {
      method: 'post',
      path: '/v1/license-keys/deactivate',
      operationId: 'license_keys:deactivate',
      tag,
      summary: 'Deactivate a license key instance',
      scopes: writeScopes(tag),
      body: licenseKeyDeactivateSchema,
      status: 204,
    },
    async ({ actor, body }) => {
      await service.deactivate(body, actor);
    },
  );
  api.op(
    {
      method: 'get',
      path: '/v1/license-keys/:id',
      operationId: 'license_keys:get',
      tag,
      summary: 'Get a license key with its activations',
      scopes: readScopes(tag),
      params: idParams,
      response: licenseKeyWithActivationsSchema,
    },
    ({ actor, params }) => service.get(actor, params.id),
  );
  api.op(
    {
      method: 'patch',
      path: '/v1/license-keys/:id',
      operationId: 'license_keys:update',
      tag,
      summary: "Update a license key's status, usage, limits or expiry",
      scopes: writeScopes(tag),
      params: idParams,
      body: licenseKeyUpdateSchema,
      response: licenseKeyReadSchema,
    },
    ({ actor, params, body }) => service.update(actor, params.id, body),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/license-keys/:id/activations/:activation_id',
      operationId: 'license_keys:get_activation',
      tag,
      summary: 'Get an activation of a license key',
      scopes: readScopes(tag),
      params: activationParams,
      response: licenseKeyActivationReadSchema,
    },
    ({ actor, params }) => service.getActivation(actor, params.id, params.activation_id),
  );
  api.publicOp(
    {
      method: 'get',
      path: '/v1/customer-portal/license-keys/',
      operationId: 'customer_portal:license_keys:list',
      tag: 'customer_portal',
      summary: "List the signed-in customer's license keys",
      query: customerLicenseKeyListQuery,
      response: licenseKeyListSchema,
    },
    async ({ ctx, query }) => service.listForCustomer(await who(ctx), query),
  );
  api.publicOp(
    {
      method: 'get',
      path: '/v1/customer-portal/license-keys/:id',
      operationId: 'customer_portal:license_keys:get',
      tag: 'customer_portal',
      summary: "Get one of the signed-in customer's license keys, with its activations",
      params: idParams,
      response: licenseKeyWithActivationsSchema,
    },
    async ({ ctx, params }) => service.getForCustomer(await who(ctx), params.id),
  );
  api.publicOp(
    {
      method: 'post',
      path: '/v1/customer-portal/license-keys/validate',
      operationId: 'customer_portal:license_keys:validate',
      tag: 'customer_portal',
      summary: 'Validate a license key (public; 3 calls per second per key)',
      body: licenseKeyValidateSchema,
      response: validatedLicenseKeySchema,
    },
    ({ body }) => service.validate(body),
  );
  api.publicOp(
    {
      method: 'post',
      path: '/v1/customer-portal/license-keys/activate',
      operationId: 'customer_portal:license_keys:activate',
      tag: 'customer_portal',
      summary: 'Activate a license key instance (public; 3 calls per second per key)',
      body: licenseKeyActivateSchema,
      response: licenseKeyActivationReadSchema,
    },
    ({ body }) => service.activate(body),
  );
  api.publicOp(
    {
      method: 'post',
      path: '/v1/customer-portal/license-keys/deactivate',
      operationId: 'customer_portal:license_keys:deactivate',
      tag: 'customer_portal',
      summary: 'Deactivate a license key instance (public; 3 calls per second per key)',
      body: licenseKeyDeactivateSchema,
      status: 204,
    },
    async ({ body }) => {
      await service.deactivate(body);
    },
  );
}
