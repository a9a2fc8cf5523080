import type Router from '@koa/router';
import Koa from 'koa';
import type { CoreContext } from '../core/context.js';
import { createAuthCookies } from './auth/cookies.js';
import type { Logger } from './logger.js';
import { errorMiddleware } from './middleware/errors.js';
import { createRateLimiter } from './middleware/rate-limit.js';
import { securityHeaders } from './middleware/security-headers.js';
import { checkoutPagesRouter } from './pages/checkout/router.js';
import { documentsRouter } from './pages/documents/router.js';
import { portalPagesRouter } from './pages/portal/router.js';
import { assetsRouter } from './pages/shared/assets.js';
import { adminRouter } from './routes/admin/index.js';
import { authRouter } from './routes/auth/index.js';
import { v1Router } from './routes/v1/index.js';
import { createSessionAuth } from './auth/session-auth.js';
import { createTrustedOrigins } from './auth/trusted-origins.js';
import { requestId } from './middleware/request-id.js';
import type { DaemonMetrics } from './ops/metrics.js';

/**
 * Builds the Koa application from a core context. Listening and shutdown are server.ts's business; so are the
 * operations routes and metrics (`ops`), which the daemon builds around its own state.
 */
export function createApp(core: CoreContext, logger: Logger, ops?: { router: Router; metrics: DaemonMetrics }): Koa {
  const app = new Koa({ proxy: core.config.trustProxy });
  const cookies = createAuthCookies(core.config);
  const sessionAuth = createSessionAuth(core, cookies);
  const trusted = createTrustedOrigins(core.config.baseUrl, core.config.trustedOrigins);
  const rateLimiter = core.config.rateLimit ? createRateLimiter(core.clock) : null;

  // Koa's own handler would print errors it sees after an answer started (a failing stream) to stderr unformatted.
  // A client that goes away (Ctrl-C on `till listen`, a closed tab) ends its stream early: nothing failed, so
  // nothing is logged.
  app.on('error', (error: unknown, ctx?: { method?: string; path?: string }) => {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ERR_STREAM_PREMATURE_CLOSE') return;
    logger.error('response failed', {
      method: ctx?.method,
      path: ctx?.path,
      error: error instanceof Error ? error.stack : String(error),
    });
  });
  // Outermost: the request id covers every later log line, and the metrics see the final status.
  app.use(requestId());
  if (ops) app.use(ops.metrics.middleware);
  app.use(securityHeaders());
  app.use(errorMiddleware(logger));
  if (ops) app.use(ops.router.routes());
  const auth = authRouter({ core, cookies, sessionAuth, trusted }, rateLimiter);
  const admin = adminRouter(core);
  app.use(auth.routes());
  app.use(admin.routes());
  app.use(v1Router(core, cookies).routes());
  app.use(checkoutPagesRouter(core, logger).routes());
  app.use(documentsRouter(core).routes());
  app.use(portalPagesRouter(core, logger).routes());
  app.use(assetsRouter().routes());
  // Unknown paths and methods answer 404 with an empty body, as Better Auth does.
  app.use(async (ctx) => {
    ctx.body = null;
    ctx.status = 404;
  });
  return app;
}
