import type { Context, Next } from 'koa';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { CoreContext } from '../../core/context.js';
import type { Operations } from '../../core/operations/service.js';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export interface DaemonMetrics {
  registry: Registry;
  /** Koa middleware counting and timing each request by its route template. */
  middleware(ctx: Context, next: Next): Promise<void>;
  /** The exposition text, with the database-backed gauges read now. */
  render(): Promise<string>;
  close(): void;
}

/** Tarn's pool, which knex keeps on its client; absent until the first connection on some versions. */
interface PoolLike {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

/**
 * The daemon's Prometheus metrics, in a registry of its own (tests run several daemons in one process). Request
 * metrics are labelled by the router's matched route template, never the raw URL, so ids in paths cannot grow the
 * label set without bound. Backlog gauges are read from the database at scrape time, not kept up to date per write.
 */
export function createMetrics(core: CoreContext, operations: Operations): DaemonMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'till_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'till_http_request_duration_seconds',
    help: 'Time from request to response headers, by method, route template and status',
    labelNames,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const gauge = (name: string, help: string, labels: string[] = []) =>
    new Gauge({ name, help, labelNames: labels, registers: [registry] });
  const outboxDepth = gauge('till_outbox_depth', 'Outbox events not yet fanned out to webhook endpoints');
  const outboxAge = gauge('till_outbox_oldest_seconds', 'Age of the oldest outbox event not yet fanned out');
  const webhookDepth = gauge('till_webhook_pending_events', 'Webhook events pending delivery, by endpoint', [
    'endpoint_id',
  ]);
  const webhookLag = gauge(
    'till_webhook_delivery_lag_seconds',
    'How long the oldest due pending webhook event of each endpoint has waited past its due time',
    ['endpoint_id'],
  );
  const attempts = new Counter({
    name: 'till_webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts made by this daemon, by endpoint and outcome (succeeded, failed)',
    labelNames: ['endpoint_id', 'outcome'],
    registers: [registry],
  });
  const schedulerDue = gauge('till_scheduler_due_jobs', 'Scheduled jobs due and not claimed');
  const schedulerLag = gauge('till_scheduler_lag_seconds', 'Age of the oldest due scheduled job nobody has claimed');
  const mailDepth = gauge('till_mail_queue_depth', 'Mails waiting to be sent (due or retrying)');
  const mailAge = gauge('till_mail_queue_oldest_seconds', 'How long the oldest due mail has waited past its due time');
  const pool = gauge('till_db_pool_connections', 'Database pool connections, by state (used, free, pending)', [
    'state',
  ]);

  const unsubscribe = core.webhooks.onAttempt((result) =>
    attempts.inc({ endpoint_id: result.endpointId, outcome: result.succeeded ? 'succeeded' : 'failed' }),
  );

  async function refresh(): Promise<void> {
    const backlog = await operations.backlog();
    outboxDepth.set(backlog.outbox.depth);
    outboxAge.set(operations.ageSeconds(backlog.outbox.oldestAt));
    // Endpoints that drained since the last scrape drop out instead of reporting their last value for ever.
    webhookDepth.reset();
    webhookLag.reset();
    for (const endpoint of backlog.webhooks) {
      webhookDepth.set({ endpoint_id: endpoint.endpointId }, endpoint.depth);
      webhookLag.set({ endpoint_id: endpoint.endpointId }, operations.ageSeconds(endpoint.oldestAt));
    }
    schedulerDue.set(backlog.scheduler.depth);
    schedulerLag.set(operations.ageSeconds(backlog.scheduler.oldestAt));
    mailDepth.set(backlog.mail.depth);
    mailAge.set(operations.ageSeconds(backlog.mail.oldestAt));
    const tarn = (core.db.client as { pool?: PoolLike }).pool;
    pool.set({ state: 'used' }, tarn?.numUsed() ?? 0);
    pool.set({ state: 'free' }, tarn?.numFree() ?? 0);
    pool.set({ state: 'pending' }, tarn?.numPendingAcquires() ?? 0);
  }

  return {
    registry,
    async middleware(ctx, next) {
      const stop = duration.startTimer();
      try {
        await next();
      } finally {
        const labels = {
          method: METHODS.has(ctx.method) ? ctx.method : 'other',
          // Set by @koa/router to the pattern of the layer that matched (`/v1/products/:id`).
          route: (ctx as { _matchedRoute?: unknown })._matchedRoute?.toString() ?? 'unmatched',
          status: String(ctx.status),
        };
        requests.inc(labels);
        stop(labels);
      }
    },
    async render() {
      await refresh();
      return registry.metrics();
    },
    close() {
      unsubscribe();
      registry.clear();
    },
  };
}
