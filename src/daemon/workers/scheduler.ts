import type { CoreContext } from '../../core/context.js';
import { SimulatedClock } from '../../core/scheduler/simulated-clock.js';
import type { Logger } from '../logger.js';
import { startPollLoop } from './poll-loop.js';

export interface SchedulerWorker {
  stop(): Promise<void>;
}

/** How often the worker looks for jobs that fell due (by the injected clock) or that another daemon wrote. */
const POLL_INTERVAL_MS = 1_000;

/**
 * Runs scheduled jobs as they fall due. It wakes when this daemon commits a job, and otherwise polls. Claims are
 * atomic in the database, so workers on any number of daemons never run one job twice. Under the simulated clock it
 * also reads the stored time on each poll, in case a move was announced while the bus was down. Same shape as the
 * mail worker.
 */
export function startSchedulerWorker(core: CoreContext, logger: Logger): SchedulerWorker {
  const { scheduler, clock } = core;
  const loop = startPollLoop(async () => {
    try {
      if (clock instanceof SimulatedClock) await clock.refresh();
      await scheduler.runAllDue(() => loop.stopped);
    } catch (error) {
      logger.warn('scheduled jobs failed', { error: String(error) });
    }
  }, POLL_INTERVAL_MS);

  const unsubscribe = scheduler.onScheduled(loop.wake);
  // Kind and subject only: a job's subject is an id, never a person's data.
  const unsubscribeFailures = scheduler.onFailure((failure) =>
    logger.warn(failure.retryAt ? 'scheduled job failed; will retry' : 'scheduled job failed; giving up', {
      jobId: failure.job.id,
      kind: failure.job.kind,
      subjectId: failure.job.subjectId,
      attempts: failure.job.attempts,
      error: failure.error,
      ...(failure.retryAt ? { retryAt: failure.retryAt.toISOString() } : {}),
    }),
  );
  const started = scheduler
    .recoverClaims()
    .catch((error) => logger.warn('scheduled job claim recovery failed', { error: String(error) }))
    .then(() => loop.wake());

  return {
    async stop() {
      unsubscribe();
      unsubscribeFailures();
      await loop.stop();
      await started;
    },
  };
}
