import type Router from '@koa/router';
import { createApiKeyBody, deleteApiKeyBody, getApiKeyQuery, listApiKeysQuery, updateApiKeyBody } from '../../../core/api-keys/schemas.js';
import { apiKeyToWire, createdApiKeyToWire } from '../../../core/api-keys/wire.js';
import { guard } from '../../guard.js';
import { bodyOf, type AuthRouteDeps } from './deps.js';

/**
 * Better Auth's api-key plugin (@better-auth/api-key 1.7.5). create and update find the session themselves, since
 * Better Auth answers them 401 UNAUTHORIZED_SESSION (and refuses server-only fields first on create); get, list and
 * delete answer 401 UNAUTHORIZED like every session route. verify is server-only there, and absent here.
 */
export function apiKeyRoutes(router: Router, deps: AuthRouteDeps): void {
  const { core, sessionAuth } = deps;

  router.post('/api-key/create', async (ctx) => {
    const body = guard(createApiKeyBody, bodyOf(ctx), 'body');
    const created = await core.apiKeys.createForUser(await sessionAuth.optionalActor(ctx), body);
    ctx.body = createdApiKeyToWire(created.key, created.plaintext);
  });

  router.get('/api-key/get', async (ctx) => {
    const query = guard(getApiKeyQuery, ctx.query, 'query');
    const actor = await sessionAuth.requireActor(ctx);
    ctx.body = apiKeyToWire(await core.apiKeys.get(actor, query.id));
  });

  router.get('/api-key/list', async (ctx) => {
    const query = guard(listApiKeysQuery, ctx.query, 'query');
    const actor = await sessionAuth.requireActor(ctx);
    const { keys, total } = await core.apiKeys.list(actor, query);
    ctx.body = { apiKeys: keys.map(apiKeyToWire), total, limit: query.limit, offset: query.offset };
  });

  router.post('/api-key/update', async (ctx) => {
    const body = guard(updateApiKeyBody, bodyOf(ctx), 'body');
    ctx.body = apiKeyToWire(await core.apiKeys.updateForUser(await sessionAuth.optionalActor(ctx), body));
  });

  router.post('/api-key/delete', async (ctx) => {
    const body = guard(deleteApiKeyBody, bodyOf(ctx), 'body');
    const actor = await sessionAuth.requireActor(ctx);
    await core.apiKeys.remove(actor, body.keyId);
    ctx.body = { success: true };
  });
}
