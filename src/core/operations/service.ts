import type { Clock } from '../kernel/clock.js';
import type { Db } from '../database/index.js';
import { dialect, pendingMigrations } from '../database/index.js';
import { operationsRepository, type EndpointBacklog, type QueueState } from './repository.js';

export interface Readiness {
  ready: boolean;
  /** Why not, in words for an operator; absent when ready. */
  reason?: string;
}

export interface Backlog {
  outbox: QueueState;
  webhooks: EndpointBacklog[];
  scheduler: QueueState;
  mail: QueueState;
}

/** What the daemon's operations routes ask of the database: readiness, backlogs for metrics, SQLite backups. */
export function createOperations(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;
  const repository = operationsRepository(db);
  // Migrations are never taken back under a running daemon: once all were found applied, only the ping is repeated.
  let migrated = false;

  return {
    dialect: dialect(db),

    async readiness(): Promise<Readiness> {
      try {
        await repository.ping();
      } catch (error) {
        return { ready: false, reason: `database does not answer: ${error instanceof Error ? error.message : error}` };
      }
      if (!migrated) {
        const pending = await pendingMigrations(db);
        if (pending.length > 0) return { ready: false, reason: `migrations not applied: ${pending.join(', ')}` };
        migrated = true;
      }
      return { ready: true };
    },

    async backlog(): Promise<Backlog> {
      const now = clock.now();
      // One after another: on SQLite they share the one connection anyway, and a scrape is not worth a burst.
      const outbox = await repository.outbox();
      const webhooks = await repository.webhookBacklog();
      const scheduler = await repository.schedulerDue(now);
      const mail = await repository.mailQueue();
      return { outbox, webhooks, scheduler, mail };
    },

    /** Seconds from `at` to now by the daemon's clock; 0 for nothing waiting or something not due yet. */
    ageSeconds(at: Date | null): number {
      return at ? Math.max(0, (clock.now().getTime() - at.getTime()) / 1000) : 0;
    },

    /** A consistent copy of the running SQLite database at `path` (a new file). */
    backupSqlite(path: string): Promise<void> {
      return repository.vacuumInto(path);
    },
  };
}

export type Operations = ReturnType<typeof createOperations>;
