import type { Db, Deferred } from '../database/index.js';
import { dialect, toDate, toDateOrNull, toStringOrNull } from '../database/index.js';
import { uuidv7 } from '../kernel/ids.js';
import { currentRequestId } from '../kernel/request-context.js';

export interface ScheduledJob {
  id: string;
  kind: string;
  subjectId: string;
  dueAt: Date;
  runAt: Date | null;
  attempts: number;
  claimedUntil: Date | null;
  claimedBy: string | null;
  lastError: string | null;
  createdAt: Date;
  /** The request that scheduled it (X-Request-Id), for the worker's log lines. */
  requestId: string | null;
}

export interface JobRequest {
  kind: string;
  subjectId: string;
  dueAt: Date;
}

function fromRow(row: Record<string, unknown>): ScheduledJob {
  return {
    id: String(row.id),
    kind: String(row.kind),
    subjectId: String(row.subject_id),
    dueAt: toDate(row.due_at),
    runAt: toDateOrNull(row.run_at),
    attempts: Number(row.attempts),
    claimedUntil: toDateOrNull(row.claimed_until),
    claimedBy: toStringOrNull(row.claimed_by),
    lastError: toStringOrNull(row.last_error),
    createdAt: toDate(row.created_at),
    requestId: toStringOrNull(row.request_id ?? null),
  };
}

/** A claim is free when nobody holds it or its lease ran out (its daemon died mid-run). */
function claimable(query: ReturnType<Db>, now: Date): ReturnType<Db> {
  return query.where('run_at', '<=', now).andWhere((free) => {
    free.whereNull('claimed_until').orWhere('claimed_until', '<=', now);
  });
}

/** A job's row as first written: due now, never tried, stamped with the request that caused it. */
function jobRow(job: JobRequest, at: Date, requestId: string | null) {
  return {
    id: uuidv7(at.getTime()),
    kind: job.kind,
    subject_id: job.subjectId,
    due_at: job.dueAt,
    run_at: job.dueAt,
    attempts: 0,
    created_at: at,
    request_id: requestId,
  };
}

export function scheduledJobsRepository(db: Db) {
  return {
    /** The INSERT, not run yet; the same (kind, subject, due time) scheduled again is ignored. */
    deferInsert(job: JobRequest, at: Date): Deferred {
      return db('scheduled_jobs')
        .insert(jobRow(job, at, currentRequestId()))
        .onConflict(['kind', 'subject_id', 'due_at'])
        .ignore();
    },

    /** deferInsert for many jobs (a batch of renewals), in multi-row INSERTs of 100 rows (SQLite's limit). */
    deferInsertMany(jobs: readonly JobRequest[], at: Date): Deferred[] {
      const requestId = currentRequestId();
      const rows = jobs.map((job) => jobRow(job, at, requestId));
      const writes: Deferred[] = [];
      for (let start = 0; start < rows.length; start += 100)
        writes.push(
          db('scheduled_jobs')
            .insert(rows.slice(start, start + 100))
            .onConflict(['kind', 'subject_id', 'due_at'])
            .ignore(),
        );
      return writes;
    },

    /** Drops the subject's jobs of this kind not yet claimed (a change that takes back what it scheduled). */
    async deleteUnclaimed(kind: string, subjectId: string): Promise<number> {
      return Number(
        await db('scheduled_jobs')
          .where({ kind, subject_id: subjectId })
          .whereNull('claimed_by')
          .whereNotNull('run_at')
          .del(),
      );
    },

    /**
     * Claims up to `limit` due jobs in one statement, earliest first. The conditions are repeated outside the
     * subquery, so a row another daemon claimed meanwhile is not claimed twice; on PostgreSQL, SKIP LOCKED lets
     * concurrent daemons pass over each other's rows (and over a row whose job is running, locked by its transaction).
     */
    async claimDue(now: Date, leaseUntil: Date, owner: string, limit: number): Promise<ScheduledJob[]> {
      let candidates = claimable(db('scheduled_jobs').select('id'), now).orderBy('run_at', 'asc').limit(limit);
      if (dialect(db) === 'postgres') candidates = candidates.forUpdate().skipLocked();
      const rows = (await claimable(db('scheduled_jobs').whereIn('id', candidates), now)
        .update({ claimed_until: leaseUntil, claimed_by: owner, attempts: db.raw('attempts + 1') })
        .returning('*')) as Array<Record<string, unknown>>;
      return rows.map(fromRow).sort((a, b) => a.dueAt.getTime() - b.dueAt.getTime() || a.id.localeCompare(b.id));
    },

    /**
     * Inside the job's transaction: locks the row if this owner still holds the claim. False means the lease ran
     * out and another daemon took it; this run must then change nothing.
     */
    async lockClaim(id: string, owner: string): Promise<boolean> {
      const query = db('scheduled_jobs').where({ id, claimed_by: owner }).select('id');
      return !!(await (dialect(db) === 'postgres' ? query.forUpdate() : query).first());
    },

    /** lockClaim for a batch: the ids (of `ids`) this owner still holds, their rows locked on PostgreSQL. */
    async lockClaims(ids: readonly string[], owner: string): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const query = db('scheduled_jobs')
        .whereIn('id', [...ids])
        .where({ claimed_by: owner })
        .select('id');
      const rows = (await (dialect(db) === 'postgres' ? query.orderBy('id').forUpdate() : query)) as Array<{
        id: string;
      }>;
      return new Set(rows.map((row) => String(row.id)));
    },

    /** complete for a batch, in the transaction that did the batch's work. */
    async completeMany(ids: readonly string[], owner: string): Promise<void> {
      if (ids.length > 0)
        await db('scheduled_jobs')
          .whereIn('id', [...ids])
          .where({ claimed_by: owner })
          .del();
    },

    /** The job is done: it goes with the transaction that did its work. */
    async complete(id: string, owner: string): Promise<void> {
      await db('scheduled_jobs').where({ id, claimed_by: owner }).del();
    },

    /** Claims given back unrun (a daemon shutting down): free at once, and the claim's attempt not counted. */
    async release(ids: string[], owner: string): Promise<void> {
      if (ids.length === 0) return;
      await db('scheduled_jobs')
        .whereIn('id', ids)
        .where({ claimed_by: owner })
        .update({ claimed_until: null, claimed_by: null, attempts: db.raw('attempts - 1') });
    },

    /** A failed run: free again at `retryAt`, or kept with its error and never run again when that is null. */
    async fail(id: string, owner: string, error: string, retryAt: Date | null): Promise<void> {
      await db('scheduled_jobs')
        .where({ id, claimed_by: owner })
        .update({ run_at: retryAt, claimed_until: null, claimed_by: null, last_error: error.slice(0, 2000) });
    },

    /** The earliest time after `after` at which a job falls due (claimed ones included), if any. */
    async nextRunAfter(after: Date): Promise<Date | null> {
      const row = await db('scheduled_jobs').where('run_at', '>', after).min({ at: 'run_at' }).first();
      return row?.at === null || row?.at === undefined ? null : toDate(row.at);
    },

    /**
     * Whether another job of this kind and subject is claimed and its lease still runs: work on the subject is in
     * flight elsewhere (two charges of one order must never run side by side).
     */
    async otherClaimed(kind: string, subjectId: string, exceptId: string, now: Date): Promise<boolean> {
      const row = await db('scheduled_jobs')
        .where({ kind, subject_id: subjectId })
        .whereNot({ id: exceptId })
        .where('claimed_until', '>', now)
        .first('id');
      return !!row;
    },

    /** otherClaimed for many jobs of one kind: the subjects of `jobs` with another live claim. */
    async otherClaimedMany(kind: string, jobs: readonly ScheduledJob[], now: Date): Promise<Set<string>> {
      if (jobs.length === 0) return new Set();
      const rows = (await db('scheduled_jobs')
        .where({ kind })
        .whereIn(
          'subject_id',
          jobs.map((job) => job.subjectId),
        )
        .whereNotIn(
          'id',
          jobs.map((job) => job.id),
        )
        .where('claimed_until', '>', now)
        .select('subject_id')) as Array<{ subject_id: string }>;
      return new Set(rows.map((row) => String(row.subject_id)));
    },

    /** Jobs due by `now` that someone holds a live claim on: running elsewhere right now. */
    async runningElsewhere(now: Date): Promise<number> {
      const row = await db('scheduled_jobs')
        .where('run_at', '<=', now)
        .where('claimed_until', '>', now)
        .count({ n: '*' })
        .first();
      return Number(row?.n ?? 0);
    },

    /** SQLite has one daemon: claims left when it stopped belong to nobody. */
    async releaseAllClaims(): Promise<number> {
      return Number(
        await db('scheduled_jobs').whereNotNull('claimed_by').update({ claimed_until: null, claimed_by: null }),
      );
    },

    async forSubject(subjectId: string): Promise<ScheduledJob[]> {
      return (
        (await db('scheduled_jobs').where({ subject_id: subjectId }).orderBy('due_at')) as Array<
          Record<string, unknown>
        >
      ).map(fromRow);
    },
  };
}
