import type { CoreContext } from '../../core/context.js';
import type { Logger } from '../logger.js';
import { startPollLoop } from './poll-loop.js';

export interface ReconcilerWorker {
  stop(): Promise<void>;
}

/** How often the worker looks for stale in-flight rows, in wall-clock time; staleness itself is by the injected clock. */
const POLL_INTERVAL_MS = 30_000;

/**
 * Settles checkouts and refunds a crashed daemon left in flight (core/checkouts/reconcile.ts, refunds' reconcile),
 * once at start and then every poll. Claims are atomic in the database, so on a shared PostgreSQL each row is settled
 * by one daemon's worker.
 */
export function startReconciler(core: CoreContext, logger: Logger): ReconcilerWorker {
  const { reconciler } = core;
  const loop = startPollLoop(async () => {
    try {
      // A full batch means more may be waiting.
      while (
        !loop.stopped &&
        (await reconciler.runOnce((error, row) =>
          logger.warn('reconciliation failed; will retry after the lease', { ...row, error: String(error) }),
        )) === reconciler.batchSize
      );
    } catch (error) {
      logger.warn('reconciliation failed', { error: String(error) });
    }
  }, POLL_INTERVAL_MS);
  loop.wake();
  return { stop: () => loop.stop() };
}
