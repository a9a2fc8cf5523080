import Router from '@koa/router';
import type { Context } from 'koa';
import type { MetricsConfig } from '../../core/config/index.js';
import { adminToken, safeEqual } from '../../core/kernel/crypto.js';
import type { Operations } from '../../core/operations/service.js';
import { bearerOf } from '../auth/credentials.js';
import type { DaemonMetrics } from './metrics.js';

export interface OpsState {
  /** Set once shutdown began: /readyz answers 503 so a load balancer stops sending new requests here. */
  draining: boolean;
}

/** Answers the Prometheus exposition (its content type names the format version). */
export async function answerMetrics(ctx: Context, metrics: DaemonMetrics): Promise<void> {
  ctx.body = await metrics.render();
  ctx.type = metrics.registry.contentType;
  ctx.set('Cache-Control', 'no-store');
}

/**
 * The routes for operators' machinery: /healthz (the process answers), /readyz (the database answers and every
 * migration is applied) and, under TILL_METRICS=admin, /metrics behind the admin token. Under `<host>:<port>`
 * metrics answer on their own listener (metrics-listener.ts) and not here; under `off` nowhere.
 */
export function opsRouter(deps: {
  operations: Operations;
  metrics: DaemonMetrics;
  metricsConfig: MetricsConfig;
  secret: string;
  state: OpsState;
}): Router {
  const { operations, metrics, state } = deps;
  const router = new Router();

  router.get('/healthz', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: 'ok' };
  });

  router.get('/readyz', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const readiness = state.draining
      ? { ready: false, reason: 'shutting down' }
      : await operations.readiness().catch((error: unknown) => ({ ready: false, reason: String(error) }));
    ctx.status = readiness.ready ? 200 : 503;
    ctx.body = readiness.ready ? { status: 'ok' } : { status: 'unavailable', reason: readiness.reason };
  });

  if (deps.metricsConfig.mode === 'admin') {
    const expected = adminToken(deps.secret);
    router.get('/metrics', async (ctx) => {
      const presented = bearerOf(ctx) ?? '';
      if (!presented || !safeEqual(presented, expected)) {
        ctx.status = 401;
        ctx.set('WWW-Authenticate', 'Bearer');
        ctx.body = { message: 'Unauthorized', code: 'UNAUTHORIZED' };
        return;
      }
      await answerMetrics(ctx, metrics);
    });
  }
  return router;
}
