import type { Knex } from 'knex';
import type { Db, Deferred } from '../database/index.js';
import { afterWriteOnlyCommit } from '../database/index.js';
import { scheduledJobsRepository, type JobRequest } from './repository.js';

/**
 * How domain code asks for work later: inside the transaction of the change that causes it, so the job exists exactly
 * when the change does. Scheduling the same (kind, subject, due time) twice leaves one job. The handler registered for
 * the kind (createScheduler's `register`) runs it once the clock reaches `dueAt`.
 */
export async function schedule(trx: Db, job: JobRequest, at: Date): Promise<void> {
  await deferSchedule(trx, job, at);
}

/** schedule as a statement not run yet, for a write-only transaction or a transaction's last writes (finishWith). */
export function deferSchedule(on: Db, job: JobRequest, at: Date): Deferred {
  wakeAfterCommit(on);
  return scheduledJobsRepository(on).deferInsert(job, at);
}

/** schedule for many jobs at once (a batch of renewals), as multi-row statements not run yet. */
export function deferScheduleMany(on: Db, jobs: readonly JobRequest[], at: Date): Deferred[] {
  if (jobs.length === 0) return [];
  wakeAfterCommit(on);
  return scheduledJobsRepository(on).deferInsertMany(jobs, at);
}

/** Takes back the subject's jobs of this kind that have not started, in the caller's transaction. */
export async function unschedule(trx: Db, kind: string, subjectId: string): Promise<void> {
  await scheduledJobsRepository(trx).deleteUnclaimed(kind, subjectId);
}

const listeners = new Set<() => void>();
const awaitingCommit = new WeakSet<object>();

/** Wakes this process's scheduler workers once the job is visible (work due at once need not wait for a poll). */
function wakeAfterCommit(on: Db): void {
  if (!on.isTransaction) {
    afterWriteOnlyCommit(notify);
    return;
  }
  if (awaitingCommit.has(on)) return;
  awaitingCommit.add(on);
  (on as Knex.Transaction).executionPromise.then(notify, () => undefined);
}

function notify(): void {
  for (const listener of listeners) listener();
}

/** Calls the listener after each transaction of this process that scheduled work. */
export function onScheduled(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
