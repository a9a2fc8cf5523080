import type { CoreContext } from '../../core/context.js';
import { MAIL_RETRY } from '../../core/mail/service.js';
import type { Logger } from '../logger.js';
import { startPollLoop } from './poll-loop.js';

export interface MailDelivery {
  stop(): Promise<void>;
}

/** How often the worker looks for due mail (retries, mail another daemon wrote) in wall-clock time. */
const POLL_INTERVAL_MS = 5_000;

/**
 * Sends due mail in the background. It wakes when this daemon commits a mail, and otherwise polls: retries fall due
 * by the injected clock, and on a shared PostgreSQL another daemon's mail may be waiting. Claims are atomic in the
 * database, so any number of workers on any number of daemons never send one claim twice. With the outbox transport
 * there is nothing to send and no worker runs.
 */
export function startMailDelivery(core: CoreContext, logger: Logger): MailDelivery {
  if (core.mail.transportKind === 'outbox') return { stop: () => core.mail.close() };
  const loop = startPollLoop(async () => {
    try {
      // A full batch means more may be due: keep going until one comes back short.
      while (!loop.stopped && (await core.mail.deliverDue()) === MAIL_RETRY.batchSize);
    } catch (error) {
      logger.warn('mail delivery failed', { error: String(error) });
    }
  }, POLL_INTERVAL_MS);

  const unsubscribe = core.mail.onEnqueued(loop.wake);
  // The mail id, not the address: logs are not the place for people's addresses.
  const unsubscribeFailures = core.mail.onDeliveryFailed((failure) =>
    logger.warn(failure.retryAt ? 'mail not sent; will retry' : 'mail not sent; giving up', {
      mailId: failure.id,
      attempts: failure.attempts,
      error: failure.error,
      ...(failure.retryAt ? { retryAt: failure.retryAt.toISOString() } : {}),
    }),
  );
  loop.wake();

  return {
    async stop() {
      unsubscribe();
      unsubscribeFailures();
      await loop.stop();
      // The worker drove the transport; with it stopped, the transport's connections can go.
      await core.mail.close();
    },
  };
}
