import type { CoreContext } from '../../core/context.js';
import { HOUR } from '../../core/kernel/clock.js';
import type { Logger } from '../logger.js';

export interface WebhookDelivery {
  stop(): Promise<void>;
}

/** How often the worker looks for due events (retries, events another daemon wrote) in wall-clock time. */
const POLL_INTERVAL_MS = 1_000;
/** The 90-day retention sweep; cheap when there is nothing to prune. */
const PRUNE_INTERVAL_MS = 6 * HOUR;

/**
 * Dispatches outbox rows to endpoints and delivers due events in the background. It wakes when this daemon commits an
 * event, and otherwise polls: retries fall due by the injected clock, and on a shared PostgreSQL another daemon's
 * events may be waiting. Claims are atomic in the database, so workers on any number of daemons never send one claim
 * twice. Same shape as the mail worker.
 */
export function startWebhookDelivery(core: CoreContext, logger: Logger): WebhookDelivery {
  const webhooks = core.webhooks;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let wokenWhileRunning = false;

  async function run(): Promise<void> {
    try {
      await webhooks.runOnce();
    } catch (error) {
      logger.warn('webhook delivery failed', { error: String(error) });
    }
  }

  function tick(): void {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = null;
    if (running) {
      wokenWhileRunning = true;
      return;
    }
    running = run().finally(() => {
      running = null;
      if (wokenWhileRunning) {
        wokenWhileRunning = false;
        tick();
        return;
      }
      schedule();
    });
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(tick, POLL_INTERVAL_MS);
    timer.unref();
  }

  const unsubscribe = webhooks.onWake(tick);
  // Ids and codes only: payloads and secrets stay out of logs.
  const unsubscribeAttempts = webhooks.onAttempt((result) => {
    if (result.succeeded) return;
    logger.warn(result.retryAt ? 'webhook not delivered; will retry' : 'webhook not delivered; giving up', {
      eventId: result.eventId,
      endpointId: result.endpointId,
      attempt: result.attempt,
      httpCode: result.httpCode,
      ...(result.retryAt ? { retryAt: result.retryAt.toISOString() } : {}),
    });
    if (result.endpointDisabled) logger.warn('webhook endpoint disabled', { endpointId: result.endpointId });
  });
  const prune = () => {
    webhooks.prune().catch((error) => logger.warn('webhook retention sweep failed', { error: String(error) }));
  };
  const pruner = setInterval(prune, PRUNE_INTERVAL_MS);
  pruner.unref();

  const started = webhooks
    .recoverClaims()
    .catch((error) => logger.warn('webhook claim recovery failed', { error: String(error) }))
    .then(() => {
      prune();
      tick();
    });

  return {
    async stop() {
      stopped = true;
      unsubscribe();
      unsubscribeAttempts();
      clearInterval(pruner);
      if (timer) clearTimeout(timer);
      await started;
      await running;
      await webhooks.close();
    },
  };
}
