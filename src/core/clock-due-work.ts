import type { MailService } from './mail/service.js';
import type { WebhookService } from './webhooks/service.js';
import type { Scheduler } from './scheduler/service.js';
import type { DueWork } from './scheduler/advance.js';

/** How long an advance waits for jobs another daemon is running before it moves on (wall time). */
const WAIT_FOR_OTHERS_MS = 30_000;

/**
 * Everything timed that the simulated clock runs as it passes, in this order at each moment: scheduled jobs (whose
 * events and mail the next two then carry), webhook deliveries and retries, mail and its retries.
 */
export function dueWork(scheduler: Scheduler, webhooks: WebhookService, mail: MailService): DueWork[] {
  return [
    {
      async runDue() {
        await scheduler.drain();
        // Another daemon's worker may hold a job due by now: its work belongs before the next step.
        const started = performance.now();
        while ((await scheduler.runningElsewhere()) > 0 && performance.now() - started < WAIT_FOR_OTHERS_MS)
          await new Promise((resolve) => setTimeout(resolve, 20));
      },
      nextDueAfter: (after) => scheduler.nextDueAfter(after),
    },
    { runDue: () => webhooks.drain(), nextDueAfter: (after) => webhooks.nextDueAfter(after) },
    {
      runDue: () => (mail.transportKind === 'outbox' ? Promise.resolve() : mail.drain()),
      nextDueAfter: (after) => mail.nextDueAfter(after),
    },
  ];
}
