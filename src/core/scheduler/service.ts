import { randomUUID } from 'node:crypto';
import type { Clock } from '../kernel/clock.js';
import { HOUR, MINUTE, SECOND } from '../kernel/clock.js';
import type { Db, Transaction } from '../database/index.js';
import { dialect, transaction } from '../database/index.js';
import { scheduledJobsRepository, type ScheduledJob } from './repository.js';
import { onScheduled } from './schedule.js';
import { withRequestId } from '../kernel/request-context.js';

/**
 * Does one job's work inside the transaction that also marks the job done, so its effects and its completion commit
 * together (or neither). `now` is the clock's time when the run started (never before `job.dueAt`).
 * A handler finds the subject as it is now and does nothing when the work no longer applies (a checkout already paid,
 * a cancellation taken back): jobs are not always unscheduled when their reason goes away.
 */
export type JobHandler = (trx: Transaction, job: ScheduledJob, now: Date) => Promise<void>;

/**
 * A job whose work calls out (a charge) before it writes: `prepare` runs under the claim but outside any transaction
 * (so the one SQLite connection is free, and no row lock is held across a network call), and its answer reaches
 * `run`, which writes it. A crash between the two leaves the job claimed; once the lease runs out it is run again, so
 * `prepare` must be safe to repeat (a charge under the same idempotency key).
 */
export interface PreparedJobHandler<P> {
  prepare(job: ScheduledJob, now: Date): Promise<P>;
  run(trx: Transaction, job: ScheduledJob, now: Date, prepared: P): Promise<void>;
}

export const SCHEDULER = {
  /** Jobs claimed at once. */
  batchSize: 100,
  /** Subjects of one batch run at the same time. */
  lanes: 8,
  /** How long a claim holds; a daemon that dies mid-run leaves its jobs to others after this. */
  leaseMs: 5 * MINUTE,
  /** Attempts before a job is given up (kept, with its last error, for an operator to read). */
  maxAttempts: 10,
} as const;

/** After the n-th failed attempt: 30 s, 1 min, 2 min, … at most an hour. */
export function retryDelayMs(attempts: number): number {
  return Math.min(30 * SECOND * 2 ** Math.max(0, attempts - 1), HOUR);
}

export interface JobFailure {
  job: ScheduledJob;
  error: string;
  retryAt: Date | null;
}

/**
 * The scheduler: durable due work in `scheduled_jobs`, run by handlers registered by kind. Any number of daemons on
 * one PostgreSQL share it (claims are atomic; a claim's run rechecks it under a row lock in the run's transaction),
 * and each job is done once. The daemon's worker calls `runDue` when woken and on a poll; the simulated clock's
 * advance calls it at each due time.
 */
export function createScheduler(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;
  // Who holds a claim: one name per scheduler, so a daemon never mistakes another's claim for its own.
  const owner = randomUUID();
  const handlers = new Map<string, PreparedJobHandler<unknown>>();
  const failureListeners = new Set<(failure: JobFailure) => void>();
  // Batches this process is running (its worker's, an advance's), so that drain can wait for them.
  const running = new Set<Promise<number>>();

  async function run(job: ScheduledJob): Promise<void> {
    const now = clock.now();
    try {
      const handler = handlers.get(job.kind);
      if (!handler) throw new Error(`no handler for scheduled job kind "${job.kind}"`);
      const prepared = await handler.prepare(job, now);
      await transaction(db, async (trx) => {
        // The lease may have run out and another daemon taken the job: then it is theirs, and this run does nothing.
        if (!(await scheduledJobsRepository(trx).lockClaim(job.id, owner))) return;
        await handler.run(trx, job, now, prepared);
        await scheduledJobsRepository(trx).complete(job.id, owner);
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const retryAt =
        job.attempts >= SCHEDULER.maxAttempts ? null : new Date(now.getTime() + retryDelayMs(job.attempts));
      await scheduledJobsRepository(db).fail(job.id, owner, message, retryAt);
      for (const listener of failureListeners) listener({ job, error: message, retryAt });
    }
  }

  async function runBatch(shouldStop: () => boolean = () => false): Promise<number> {
    const now = clock.now();
    const jobs = await scheduledJobsRepository(db).claimDue(
      now,
      new Date(now.getTime() + SCHEDULER.leaseMs),
      owner,
      SCHEDULER.batchSize,
    );
    // One lane per subject, in due order within it (a subscription's cycle before its charge); different subjects
    // run side by side, so SQLite's group commit and PostgreSQL's pool share the work of a storm of due jobs.
    const lanes = new Map<string, ScheduledJob[]>();
    for (const job of jobs) {
      const lane = lanes.get(job.subjectId);
      if (lane) lane.push(job);
      else lanes.set(job.subjectId, [job]);
    }
    const queue = [...lanes.values()];
    const unstarted: string[] = [];
    const worker = async () => {
      for (let lane = queue.shift(); lane; lane = queue.shift()) {
        for (const job of lane) {
          // A daemon shutting down gives back what it has not started, rather than holding it for a lease.
          if (shouldStop()) {
            unstarted.push(...lane.slice(lane.indexOf(job)).map((unrun) => unrun.id));
            break;
          }
          await withRequestId(job.requestId, () => run(job));
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(SCHEDULER.lanes, queue.length) }, worker));
    if (unstarted.length > 0) await scheduledJobsRepository(db).release(unstarted, owner);
    return jobs.length;
  }

  return {
    /** The handler for a kind; registered once, when the daemon's core is built. */
    register(kind: string, handler: JobHandler): void {
      this.registerPrepared(kind, { prepare: async () => undefined, run: (trx, job, now) => handler(trx, job, now) });
    },

    /** A handler with a step before its transaction (see PreparedJobHandler). */
    registerPrepared<P>(kind: string, handler: PreparedJobHandler<P>): void {
      if (handlers.has(kind)) throw new Error(`scheduled job kind "${kind}" is registered twice`);
      handlers.set(kind, handler as PreparedJobHandler<unknown>);
    },

    /** Claims one batch of due jobs and runs them in due order; answers how many it claimed. */
    runDue(shouldStop?: () => boolean): Promise<number> {
      const batch = runBatch(shouldStop);
      running.add(batch);
      const forget = () => running.delete(batch);
      batch.then(forget, forget);
      return batch;
    },

    /** Everything due now, batch after batch, including jobs that runs scheduled for now. */
    async runAllDue(shouldStop: () => boolean = () => false): Promise<void> {
      while (!shouldStop() && (await this.runDue(shouldStop)) > 0);
    },

    /**
     * Everything due now done, including batches this daemon's worker already started: tests call it after moving
     * the clock, instead of sleeping, and so does the simulated clock's advance.
     */
    async drain(): Promise<void> {
      for (;;) {
        await Promise.allSettled([...running]);
        const claimed = await this.runDue();
        if (claimed === 0 && running.size === 0) return;
      }
    },

    /** The earliest time after `after` at which a job falls due. */
    nextDueAfter(after: Date): Promise<Date | null> {
      return scheduledJobsRepository(db).nextRunAfter(after);
    },

    /** Jobs due by now that another daemon (or this one's worker) is running at this moment. */
    runningElsewhere(): Promise<number> {
      return scheduledJobsRepository(db).runningElsewhere(clock.now());
    },

    /** On SQLite, claims left by a daemon that stopped mid-run are released at start (one daemon per file). */
    async recoverClaims(): Promise<number> {
      return dialect(db) === 'sqlite' ? scheduledJobsRepository(db).releaseAllClaims() : 0;
    },

    /** Wakes the listener after this process committed a scheduled job. */
    onScheduled,

    onFailure(listener: (failure: JobFailure) => void): () => void {
      failureListeners.add(listener);
      return () => failureListeners.delete(listener);
    },
  };
}

export type Scheduler = ReturnType<typeof createScheduler>;
