import {
  createApiKeyBody,
  deleteApiKeyBody,
  getApiKeyQuery,
  listApiKeysQuery,
  updateApiKeyBody,
} from '../../../core/api-keys/schemas.js';
import { apiKeyToWire, createdApiKeyToWire } from '../../../core/api-keys/wire.js';
import type { AuthApi } from './route.js';

/**
 * Better Auth's api-key plugin (@better-auth/api-key 1.7.5). create and update take an optional caller, since
 * Better Auth answers them 401 UNAUTHORIZED_SESSION (and refuses server-only fields first on create); get, list and
 * delete answer 401 UNAUTHORIZED like every session route. verify is server-only there, and absent here.
 */
export function apiKeyRoutes(api: AuthApi): void {
  const { core } = api.deps;

  api.route(
    { method: 'post', path: '/api-key/create', caller: 'optional', body: createApiKeyBody },
    async ({ actor, body }) => {
      const created = await core.apiKeys.createForUser(actor, body);
      return createdApiKeyToWire(created.key, created.plaintext);
    },
  );

  api.route(
    { method: 'get', path: '/api-key/get', caller: 'session', query: getApiKeyQuery },
    async ({ actor, query }) => apiKeyToWire(await core.apiKeys.get(actor, query.id)),
  );

  api.route(
    { method: 'get', path: '/api-key/list', caller: 'session', query: listApiKeysQuery },
    async ({ actor, query }) => {
      const { keys, total } = await core.apiKeys.list(actor, query);
      return { apiKeys: keys.map(apiKeyToWire), total, limit: query.limit, offset: query.offset };
    },
  );

  api.route(
    { method: 'post', path: '/api-key/update', caller: 'optional', body: updateApiKeyBody },
    async ({ actor, body }) => apiKeyToWire(await core.apiKeys.updateForUser(actor, body)),
  );

  api.route(
    { method: 'post', path: '/api-key/delete', caller: 'session', body: deleteApiKeyBody },
    async ({ actor, body }) => {
      await core.apiKeys.remove(actor, body.keyId);
      return { success: true };
    },
  );
}
