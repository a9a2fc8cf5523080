import type { CoreContext } from '../../core/context.js';
import { HOUR } from '../../core/kernel/clock.js';
import { withRequestId } from '../../core/kernel/request-context.js';
import type { Logger } from '../logger.js';
import { startPollLoop } from './poll-loop.js';

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
  const loop = startPollLoop(async () => {
    try {
      await webhooks.runOnce();
    } catch (error) {
      logger.warn('webhook delivery failed', { error: String(error) });
    }
  }, POLL_INTERVAL_MS);

  const unsubscribe = webhooks.onWake(loop.wake);
  // Rounds started when a run finishes have no caller to report to.
  const unsubscribeErrors = webhooks.onError((error) =>
    logger.warn('webhook delivery failed', { error: String(error) }),
  );
  // Ids and codes only: payloads and secrets stay out of logs. Each line is written under the request that caused the
  // event (stored with it), not under whichever request's commit happened to start the round that recorded it.
  const unsubscribeAttempts = webhooks.onAttempt((result) => {
    if (result.succeeded) return;
    withRequestId(result.requestId, () => {
      logger.warn(result.retryAt ? 'webhook not delivered; will retry' : 'webhook not delivered; giving up', {
        eventId: result.eventId,
        endpointId: result.endpointId,
        attempt: result.attempt,
        httpCode: result.httpCode,
        ...(result.retryAt ? { retryAt: result.retryAt.toISOString() } : {}),
      });
      if (result.endpointDisabled) logger.warn('webhook endpoint disabled', { endpointId: result.endpointId });
    });
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
      loop.wake();
    });

  return {
    async stop() {
      unsubscribe();
      unsubscribeAttempts();
      unsubscribeErrors();
      clearInterval(pruner);
      await loop.stop();
      // Claim recovery may still be running; its wake is ignored once the loop is stopped.
      await started;
      await webhooks.close();
    },
  };
}
