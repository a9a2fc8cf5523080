import type { Knex } from 'knex';
import type { Db } from '../database/index.js';
import { dialect, toDate, toDateOrNull } from '../database/index.js';
import { idIn } from './bulk.js';

export interface OutboxRow {
  id: string;
  seq: number;
  organizationId: string;
  type: string;
  payload: string;
  createdAt: Date;
  /** The request that wrote it (X-Request-Id), if any. */
  requestId: string | null;
}

/** An outbox row without its payload: enough to find the endpoints it goes to. */
export type OutboxHead = Omit<OutboxRow, 'payload'>;

/** SQLite's rowid is the outbox's write order; PostgreSQL has a BIGSERIAL for it (see the webhooks migration). */
export function outboxSeq(db: Db): string {
  return dialect(db) === 'postgres' ? 'seq' : 'rowid';
}

function headFromRow(row: Record<string, unknown>): OutboxHead {
  return {
    id: String(row.id),
    seq: Number(row.seq),
    organizationId: String(row.organization_id),
    type: String(row.type),
    createdAt: toDate(row.created_at),
    requestId: (row.request_id as string | null | undefined) ?? null,
  };
}

const DISPATCHED = 'dispatched';

/**
 * The outbox's reads: the event stream's pages, and which rows the dispatcher has fanned out. On PostgreSQL
 * `outbox_pending` lists the rows waiting (kept by triggers as rows are inserted and deleted, see the
 * 20270102000000_outbox_pending migration): concurrent writers commit seqs out of order, so a mark could pass a row
 * not yet committed, and marking each row rewrote it, payload and all. On SQLite one writer at a time commits, so
 * rowids are in commit order and a mark (`outbox_marks`) says it: every row up to it is dispatched, none after it.
 * Retention keeps the newest row, so rowids are never reused below the mark; VACUUM and the backups' VACUUM INTO keep
 * rowids (SQLite copies the tables' b-trees as they are), which the event streams' cursors and the webhook events'
 * seqs rely on too.
 */
export function outboxRepository(db: Db) {
  const sqlite = dialect(db) === 'sqlite';
  const seq = outboxSeq(db);
  const mark = () => db('outbox_marks').select('seq').where('name', DISPATCHED);
  const pending = () => db('outbox_pending').select('seq');
  // SQLite's rows waiting: those after the mark. PostgreSQL's are listed in outbox_pending.
  const afterMark = <Q extends Knex.QueryBuilder>(query: Q): Q => query.where('rowid', '>', mark()) as Q;

  return {
    /** Rows not yet fanned out, in write order, without their payloads (most go to no endpoint). */
    async undispatched(limit: number): Promise<OutboxHead[]> {
      const columns = ['id', 'organization_id', 'type', 'created_at', 'request_id'];
      const rows = sqlite
        ? await afterMark(db('outbox_events').select(...columns, db.raw('rowid as seq')))
            .orderBy('rowid', 'asc')
            .limit(limit)
        : // The pending list in seq order, each row found by its id (the outbox has no index on seq alone).
          await db('outbox_pending as p')
            .join('outbox_events as e', 'e.id', 'p.id')
            .select(...columns.map((column) => `e.${column}`), 'p.seq')
            .orderBy('p.seq', 'asc')
            .limit(limit);
      return rows.map(headFromRow);
    },

    /** The payloads of these rows, by id. */
    async payloads(ids: string[]): Promise<Map<string, string>> {
      if (ids.length === 0) return new Map();
      const list = idIn(db, 'id', ids);
      const rows = (await db('outbox_events').select('id', 'payload').whereRaw(list.sql, [list.binding])) as Array<{
        id: string;
        payload: string;
      }>;
      return new Map(rows.map((row) => [row.id, String(row.payload)]));
    },

    /** Marks the rows dispatched: `rows` are a prefix of `undispatched`, in its order. */
    async markDispatched(rows: OutboxHead[]): Promise<void> {
      if (rows.length === 0) return;
      if (sqlite) {
        const last = rows[rows.length - 1]!.seq;
        await db('outbox_marks')
          .where('name', DISPATCHED)
          .update({ seq: db.raw('max(seq, ?)', [last]) });
        return;
      }
      await db('outbox_pending')
        .whereRaw('seq = ANY(?::bigint[])', [rows.map((row) => row.seq)])
        .del();
    },

    /** How many rows wait for the dispatcher, and when the oldest was written. */
    async backlog(): Promise<{ depth: number; oldestAt: Date | null }> {
      const row = await (
        sqlite
          ? afterMark(db('outbox_events').count({ n: '*' }).min({ oldest: 'created_at' }))
          : db('outbox_pending as p')
              .join('outbox_events as e', 'e.id', 'p.id')
              .count({ n: '*' })
              .min({ oldest: 'e.created_at' })
      ).first();
      return { depth: Number(row?.n ?? 0), oldestAt: toDateOrNull(row?.oldest ?? null) };
    },

    /** Deletes dispatched rows written before the cutoff, except the newest row (it keeps the order). */
    async prune(cutoff: Date): Promise<number> {
      const newest = await db('outbox_events').max({ n: seq }).first();
      const dispatched = db('outbox_events')
        .where('created_at', '<', cutoff)
        .where(seq, '<', Number(newest?.n ?? 0));
      if (sqlite) dispatched.where('rowid', '<=', mark());
      else dispatched.whereNotIn('seq', pending());
      return Number(await dispatched.delete());
    },

    /** An organization's outbox events after `seq`, in write order (the event stream). */
    async after(organizationId: string, after: number, limit: number): Promise<OutboxRow[]> {
      const rows = await db('outbox_events')
        .select('id', 'organization_id', 'type', 'payload', 'created_at', 'request_id', db.raw(`${seq} as seq`))
        .where('organization_id', organizationId)
        .where(seq, '>', after)
        .orderBy(seq, 'asc')
        .limit(limit);
      return rows.map((row: Record<string, unknown>) => ({ ...headFromRow(row), payload: String(row.payload) }));
    },

    /** The seq of an organization's newest outbox event (0 when it has none). */
    async latestSeq(organizationId: string): Promise<number> {
      const row = await db('outbox_events').where('organization_id', organizationId).max({ n: seq }).first();
      return Number(row?.n ?? 0);
    },
  };
}
