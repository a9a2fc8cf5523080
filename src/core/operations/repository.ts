import type { Db } from '../database/index.js';
import { dialect, toDateOrNull } from '../database/index.js';
import { outboxRepository } from '../webhooks/outbox-repository.js';

export interface QueueState {
  /** Rows waiting. */
  depth: number;
  /** When the longest-waiting row was written or fell due; null when nothing waits. */
  oldestAt: Date | null;
}

export interface EndpointBacklog extends QueueState {
  endpointId: string;
}

function queueState(row: { n?: unknown; oldest?: unknown } | undefined): QueueState {
  return { depth: Number(row?.n ?? 0), oldestAt: toDateOrNull(row?.oldest ?? null) };
}

/**
 * The reads behind /metrics and /readyz. Each goes through an index whose entries are the work still to do
 * (outbox_events_undispatched on PostgreSQL and the rowids after the dispatch mark on SQLite, webhook_events (status,
 * next_attempt_at), scheduled_jobs (run_at), mails (status, next_attempt_at)), so a scrape costs what the backlog
 * holds, not what the tables hold.
 */
export function operationsRepository(db: Db) {
  return {
    async ping(): Promise<void> {
      await db.raw('SELECT 1');
    },

    /** Outbox rows not yet fanned out to endpoints. */
    async outbox(): Promise<QueueState> {
      return outboxRepository(db).backlog();
    },

    /** Pending deliveries per endpoint, with the earliest time one of them fell (or falls) due. */
    async webhookBacklog(): Promise<EndpointBacklog[]> {
      const rows = (await db('webhook_events')
        .where('status', 'pending')
        .groupBy('endpoint_id')
        .select('endpoint_id')
        .count({ n: '*' })
        .min({ oldest: 'next_attempt_at' })) as Array<{ endpoint_id: string; n: unknown; oldest: unknown }>;
      return rows.map((row) => ({ endpointId: row.endpoint_id, ...queueState(row) }));
    },

    /** Jobs due by `now` that nobody holds a live claim on: the scheduler is behind by the oldest one's age. */
    async schedulerDue(now: Date): Promise<QueueState> {
      return queueState(
        await db('scheduled_jobs')
          .where('run_at', '<=', now)
          .andWhere((free) => {
            free.whereNull('claimed_until').orWhere('claimed_until', '<=', now);
          })
          .count({ n: '*' })
          .min({ oldest: 'run_at' })
          .first(),
      );
    },

    /** Mail waiting to be sent (due now or retrying later). */
    async mailQueue(): Promise<QueueState> {
      return queueState(
        await db('mails').where('status', 'pending').count({ n: '*' }).min({ oldest: 'next_attempt_at' }).first(),
      );
    },

    /**
     * A consistent copy of the whole SQLite database in a new file, taken inside one read transaction while the
     * daemon keeps serving (writes wait for the copy on the one connection). `path` must not exist.
     */
    async vacuumInto(path: string): Promise<void> {
      if (dialect(db) !== 'sqlite') throw new Error('VACUUM INTO is SQLite only');
      await db.raw('VACUUM INTO ?', [path]);
    },
  };
}
