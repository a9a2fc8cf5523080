import type { CoreContext } from '../../core/context.js';
import { MAIL_RETRY } from '../../core/mail/service.js';
import type { Logger } from '../logger.js';

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
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let wokenWhileRunning = false;

  async function run(): Promise<void> {
    try {
      // A full batch means more may be due: keep going until one comes back short.
      while (!stopped && (await core.mail.deliverDue()) === MAIL_RETRY.batchSize);
    } catch (error) {
      logger.warn('mail delivery failed', { error: String(error) });
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

  const unsubscribe = core.mail.onEnqueued(tick);
  // The mail id, not the address: logs are not the place for people's addresses.
  const unsubscribeFailures = core.mail.onDeliveryFailed((failure) =>
    logger.warn(failure.retryAt ? 'mail not sent; will retry' : 'mail not sent; giving up', {
      mailId: failure.id,
      attempts: failure.attempts,
      error: failure.error,
      ...(failure.retryAt ? { retryAt: failure.retryAt.toISOString() } : {}),
    }),
  );
  tick();

  return {
    async stop() {
      stopped = true;
      unsubscribe();
      unsubscribeFailures();
      if (timer) clearTimeout(timer);
      await running;
      // The worker drove the transport; with it stopped, the transport's connections can go.
      await core.mail.close();
    },
  };
}
