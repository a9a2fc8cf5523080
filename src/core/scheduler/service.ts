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

/**
 * Many jobs of one kind done together (a storm of renewals due at one instant): their reads shared, their writes sent
 * as a few multi-row statements, in one transaction that also marks them done. The kind keeps its per-job handler,
 * which runs every job the batch leaves (`run` answers them: cases it does not take, such as a subscription with a
 * change pending), and every job of a batch whose transaction failed, one by one, so that one bad subject neither
 * holds back nor fails the others. `prepare` runs under the claims outside any transaction, as a prepared job's does,
 * and must be safe to repeat (a charge under its idempotency key).
 */
export interface BatchJobHandler<P> {
  prepare?(jobs: ScheduledJob[], now: Date): Promise<P>;
  run(trx: Transaction, jobs: ScheduledJob[], now: Date, prepared: P): Promise<ScheduledJob[]>;
}

export const SCHEDULER = {
  /** Jobs claimed at once. */
  batchSize: { sqlite: 400, postgres: 400 },
  /**
   * Jobs of one kind done in one transaction (BatchJobHandler). SQLite's one connection serves every request while a
   * transaction holds it, so requests wait for a chunk: in bench/renewals chunks of 400 did about a third more
   * renewals a second than chunks of 50 (fewer commits) with get-session's p99 near 25 ms; 600 brought no more and
   * a p99 near 40 ms. On PostgreSQL a chunk's writes are built and sent in long stretches of the event loop (pg
   * writes each statement's thousands of values in one go): chunks of 200 gave a p99 of 46–60 ms, chunks of 100
   * 40–44 ms at the same rate.
   */
  togetherSize: { sqlite: 400, postgres: 100 },
  /**
   * Chunks of one claim in flight at once. On PostgreSQL two chunks use both of the server's and the daemon's CPUs
   * where one leaves each waiting for the other (bench/renewals: about 940 renewals/s against 830); SQLite has one
   * connection to give.
   */
  chunksInFlight: { sqlite: 1, postgres: 2 },
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
  const batchHandlers = new Map<string, BatchJobHandler<unknown>>();
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

  /**
   * A kind's jobs of one claim together (see BatchJobHandler); answers the jobs left for the per-job handler. Claims
   * another daemon took meanwhile (a lease run out) are left alone, as lockClaim does for one job.
   */
  async function runTogether(kind: string, jobs: ScheduledJob[]): Promise<ScheduledJob[]> {
    const handler = batchHandlers.get(kind)!;
    const now = clock.now();
    try {
      const prepared = handler.prepare ? await handler.prepare(jobs, now) : undefined;
      return await transaction(db, async (trx) => {
        const repo = scheduledJobsRepository(trx);
        const held = await repo.lockClaims(
          jobs.map((job) => job.id),
          owner,
        );
        const left = await handler.run(
          trx,
          jobs.filter((job) => held.has(job.id)),
          now,
          prepared,
        );
        const leftIds = new Set(left.map((job) => job.id));
        await repo.completeMany(
          [...held].filter((id) => !leftIds.has(id)),
          owner,
        );
        return left;
      });
    } catch {
      // Each job then runs (and, if it must, fails with its own error and retry) alone.
      return jobs;
    }
  }

  async function runBatch(shouldStop: () => boolean = () => false): Promise<number> {
    const now = clock.now();
    const claimed = await scheduledJobsRepository(db).claimDue(
      now,
      new Date(now.getTime() + SCHEDULER.leaseMs),
      owner,
      SCHEDULER.batchSize[dialect(db)],
    );
    // Kinds done in batches take their jobs whose subject has no other job in this claim (a subject's jobs run in due
    // order, one after another, in its lane).
    const perSubject = new Map<string, number>();
    for (const job of claimed) perSubject.set(job.subjectId, (perSubject.get(job.subjectId) ?? 0) + 1);
    const together = new Map<string, ScheduledJob[]>();
    const jobs: ScheduledJob[] = [];
    for (const job of claimed) {
      if (batchHandlers.has(job.kind) && perSubject.get(job.subjectId) === 1 && !shouldStop()) {
        const group = together.get(job.kind);
        if (group) group.push(job);
        else together.set(job.kind, [job]);
      } else jobs.push(job);
    }
    const size = SCHEDULER.togetherSize[dialect(db)];
    const chunks: Array<[string, ScheduledJob[]]> = [];
    for (const [kind, group] of together)
      for (let start = 0; start < group.length; start += size) chunks.push([kind, group.slice(start, start + size)]);
    const runChunks = async () => {
      for (let chunk = chunks.shift(); chunk; chunk = chunks.shift()) jobs.push(...(await runTogether(...chunk)));
    };
    await Promise.all(Array.from({ length: SCHEDULER.chunksInFlight[dialect(db)] }, runChunks));
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
    return claimed.length;
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

    /** Does the kind's jobs in batches (see BatchJobHandler); its per-job handler must be registered too. */
    registerBatch<P>(kind: string, handler: BatchJobHandler<P>): void {
      if (batchHandlers.has(kind)) throw new Error(`scheduled job kind "${kind}" is batched twice`);
      batchHandlers.set(kind, handler as BatchJobHandler<unknown>);
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
