import type Router from '@koa/router';
import type { Context } from 'koa';
import { adminCreateApiKeyBody, adminUpdateApiKeyBody } from '../../../core/api-keys/schemas.js';
import { apiKeyToWire, createdApiKeyToWire } from '../../../core/api-keys/wire.js';
import type { CoreContext } from '../../../core/context.js';
import { validateInput } from '../auth/validation.js';

/**
 * What Better Auth only lets its server set (usage limits with refill, per-key rate limits, permissions, the
 * owner), for the operator. Same key object as /api/auth/api-key; create returns the key once.
 */
export function adminApiKeyRoutes(router: Router, core: CoreContext): void {
  router.post('/api-keys/create', async (ctx: Context) => {
    const body = validateInput(adminCreateApiKeyBody, ctx.state.body, 'body');
    const created = await core.apiKeys.createForAdmin(body);
    ctx.body = createdApiKeyToWire(created.key, created.plaintext);
  });

  router.post('/api-keys/update', async (ctx: Context) => {
    const body = validateInput(adminUpdateApiKeyBody, ctx.state.body, 'body');
    ctx.body = apiKeyToWire(await core.apiKeys.updateForAdmin(body));
  });
}
