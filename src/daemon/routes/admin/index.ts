import Router from '@koa/router';
import type { Context, Next } from 'koa';
import { setPasswordBody } from '../../../core/auth/schemas.js';
import { userToWire } from '../../../core/auth/wire.js';
import type { CoreContext } from '../../../core/context.js';
import { adminToken, safeEqual } from '../../../core/kernel/crypto.js';
import { DomainError } from '../../../core/kernel/errors.js';
import { refuseNul, validateInput } from '../auth/validation.js';
import { bearerOf } from '../../auth/credentials.js';
import { readBody } from '../../middleware/body.js';
import { adminApiKeyRoutes } from './api-keys.js';
import { adminMailRoutes } from './mails.js';
import { adminClockRoutes } from './clock.js';
import { adminBackupRoutes } from './backup.js';

/**
 * Operator-only operations that Better Auth keeps server-side (set-password, API keys' server-only fields), the
 * daemon's mail, the simulated clock and SQLite backups.
 * Authenticated by the admin token derived from TILL_SECRET (`till admin token` prints it on the daemon's machine),
 * never by a user session.
 */
export function adminRouter(core: CoreContext): Router {
  const router = new Router({ prefix: '/api/admin' });
  const expected = adminToken(core.config.secret);

  // Mounted on '': a path-less use() is matched against the prefix case-sensitively by @koa/router while routes are
  // not, so `/API/ADMIN/…` would reach the routes without the admin token.
  router.use('', async (ctx: Context, next: Next) => {
    const presented = bearerOf(ctx) ?? '';
    if (!presented || !safeEqual(presented, expected)) throw new DomainError(401, 'UNAUTHORIZED', 'Unauthorized');
    if (ctx.method === 'POST') ctx.state.body = await readBody(ctx, { maxBytes: core.config.maxBodyBytes });
    refuseNul({ path: decodedPath(ctx.path), body: ctx.state.body, query: ctx.query });
    await next();
  });

  router.post('/set-password', async (ctx) => {
    const body = validateInput(setPasswordBody, ctx.state.body, 'body');
    if (!body.userId && !body.email)
      throw new DomainError(400, 'VALIDATION_ERROR', '[body] userId or email is required');
    const user = await core.auth.setPassword({ userId: body.userId, email: body.email }, body.newPassword);
    ctx.body = { status: true, user: userToWire(user) };
  });

  adminApiKeyRoutes(router, core);
  adminMailRoutes(router, core);
  adminClockRoutes(router, core);
  adminBackupRoutes(router, core);
  return router;
}

/** The path as the router decodes its parameters (`/mails/:id`); left as sent when it is not valid percent-encoding. */
function decodedPath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
