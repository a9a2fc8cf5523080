import type { Db } from '../database/index.js';
import { dialect, toDate, toDateOrNull } from '../database/index.js';
import { currentRequestId } from '../kernel/request-context.js';

export type MailStatus = 'stored' | 'pending' | 'sending' | 'sent' | 'failed';

/** A mail row as stored: bodies still sealed. */
export interface MailRecord {
  id: string;
  kind: string;
  userId: string | null;
  from: string;
  to: string;
  subject: string;
  sealedText: string;
  sealedHtml: string;
  status: MailStatus;
  attempts: number;
  nextAttemptAt: Date | null;
  lockedUntil: Date | null;
  lastError: string | null;
  sentAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /** The request that caused it (X-Request-Id), for the worker's log lines; written from the request context. */
  requestId?: string | null;
}

type Row = Record<string, unknown>;

function fromRow(row: Row): MailRecord {
  return {
    id: row.id as string,
    kind: row.kind as string,
    userId: (row.user_id as string | null) ?? null,
    from: row.from_address as string,
    to: row.to_address as string,
    subject: row.subject as string,
    sealedText: row.text_body as string,
    sealedHtml: row.html_body as string,
    status: row.status as MailStatus,
    attempts: Number(row.attempts),
    nextAttemptAt: toDateOrNull(row.next_attempt_at),
    lockedUntil: toDateOrNull(row.locked_until),
    lastError: (row.last_error as string | null) ?? null,
    sentAt: toDateOrNull(row.sent_at),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
    requestId: (row.request_id as string | null | undefined) ?? null,
  };
}

const SUMMARY_COLUMNS = [
  'id',
  'kind',
  'user_id',
  'from_address',
  'to_address',
  'subject',
  'status',
  'attempts',
  'next_attempt_at',
  'locked_until',
  'last_error',
  'sent_at',
  'created_at',
  'updated_at',
];

export function mailsRepository(db: Db) {
  return {
    async insert(mail: MailRecord): Promise<void> {
      await db('mails').insert({
        id: mail.id,
        kind: mail.kind,
        user_id: mail.userId,
        from_address: mail.from,
        to_address: mail.to,
        subject: mail.subject,
        text_body: mail.sealedText,
        html_body: mail.sealedHtml,
        status: mail.status,
        attempts: mail.attempts,
        next_attempt_at: mail.nextAttemptAt,
        locked_until: mail.lockedUntil,
        last_error: mail.lastError,
        sent_at: mail.sentAt,
        created_at: mail.createdAt,
        updated_at: mail.updatedAt,
        request_id: mail.requestId ?? currentRequestId(),
      });
    },

    /**
     * Claims up to `limit` due mails in one statement: pending ones whose time has come, and ones whose claim
     * lease ran out (their worker died mid-send). The status test is repeated outside the subquery, so a row that
     * another worker claimed meanwhile is not claimed twice; on PostgreSQL, SKIP LOCKED lets concurrent workers
     * pass over each other's rows instead of waiting for them. Each claim counts as an attempt.
     */
    async claimDue(now: Date, leaseUntil: Date, limit: number): Promise<MailRecord[]> {
      const due = (query: ReturnType<Db>) =>
        query.where((outer) => {
          outer
            .where((pending) => {
              pending.where('status', 'pending').andWhere('next_attempt_at', '<=', now);
            })
            .orWhere((abandoned) => {
              abandoned.where('status', 'sending').andWhere('locked_until', '<=', now);
            });
        });
      let candidates = due(db('mails').select('id')).orderBy('next_attempt_at', 'asc').limit(limit);
      if (dialect(db) === 'postgres') candidates = candidates.forUpdate().skipLocked();
      const rows = await due(db('mails').whereIn('id', candidates))
        .update({ status: 'sending', locked_until: leaseUntil, attempts: db.raw('attempts + 1'), updated_at: now })
        .returning('*');
      return (rows as Row[]).map(fromRow);
    },

    /** Both outcomes only apply to the claim they belong to (same attempt), never to a later re-claim. */
    async markSent(id: string, attempt: number, at: Date): Promise<void> {
      await db('mails').where({ id, status: 'sending', attempts: attempt }).update({
        status: 'sent',
        sent_at: at,
        locked_until: null,
        next_attempt_at: null,
        last_error: null,
        updated_at: at,
      });
    },

    async markFailed(id: string, attempt: number, error: string, retryAt: Date | null, at: Date): Promise<void> {
      await db('mails')
        .where({ id, status: 'sending', attempts: attempt })
        .update({
          status: retryAt ? 'pending' : 'failed',
          next_attempt_at: retryAt,
          locked_until: null,
          last_error: error,
          updated_at: at,
        });
    },

    /** The earliest time after `after` at which a mail falls due (a retry, or a claim whose lease runs out). */
    async nextDueAfter(after: Date): Promise<Date | null> {
      const row = await db('mails')
        .where({ status: 'pending' })
        .where('next_attempt_at', '>', after)
        .min({ at: 'next_attempt_at' })
        .first();
      return row?.at === null || row?.at === undefined ? null : toDate(row.at);
    },

    async findById(id: string): Promise<MailRecord | null> {
      const row = await db('mails').where({ id }).first();
      return row ? fromRow(row) : null;
    },

    /** Newest first; summaries carry no bodies. */
    async list(filter: { to?: string; kind?: string; status?: MailStatus; limit: number }): Promise<MailRecord[]> {
      const query = db('mails').select(SUMMARY_COLUMNS).orderBy('id', 'desc').limit(filter.limit);
      if (filter.to) query.where('to_address', filter.to);
      if (filter.kind) query.where('kind', filter.kind);
      if (filter.status) query.where('status', filter.status);
      const rows = await query;
      return rows.map((row: Row) => fromRow({ ...row, text_body: '', html_body: '' }));
    },
  };
}
