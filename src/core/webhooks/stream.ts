import { PassThrough, type Readable } from 'node:stream';
import type { Db } from '../database/index.js';
import { onEventsCommitted } from '../kernel/outbox.js';
import { envelope } from './dispatcher.js';
import { outboxRepository } from './outbox-repository.js';

/** How often a stream looks for events committed by other daemons (its own wake it at once). */
const POLL_MS = 1_000;
const HEARTBEAT_MS = 15_000;
const PAGE = 100;

/**
 * Server-sent events: an organization's outbox events as they commit, each `id:` its outbox sequence number and
 * `data:` the webhook body (`{type, timestamp, data}`), so a relay can forward it verbatim. Resuming after an id
 * replays what came since; without one the stream starts at the present.
 *
 * On PostgreSQL a sequence number is taken at insert and becomes visible at commit, so an event whose transaction
 * commits after a later one was streamed can be missed by a live stream (webhook delivery never misses it).
 */
export async function openEventStream(
  db: Db,
  organizationId: string,
  after: number | null,
  onClose: () => void,
): Promise<Readable> {
  const outbox = outboxRepository(db);
  // Taken before the stream answers, so an event committed once the client sees the stream open is never missed.
  let last = after ?? (await outbox.latestSeq(organizationId));
  const out = new PassThrough();
  let running = false;
  let again = false;
  let closed = false;

  async function pump(): Promise<void> {
    if (closed) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      for (;;) {
        const rows = await outbox.after(organizationId, last, PAGE);
        for (const row of rows) {
          if (closed) return;
          out.write(`id: ${row.seq}\nevent: ${row.type}\ndata: ${envelope(row)}\n\n`);
          last = row.seq;
        }
        if (rows.length < PAGE) break;
      }
    } catch (error) {
      if (!closed) out.destroy(error as Error);
    } finally {
      running = false;
      if (again && !closed) {
        again = false;
        void pump();
      }
    }
  }

  const unsubscribe = onEventsCommitted(() => void pump());
  const poll = setInterval(() => void pump(), POLL_MS);
  const heartbeat = setInterval(() => out.write(': keep-alive\n\n'), HEARTBEAT_MS);
  poll.unref();
  heartbeat.unref();
  out.once('close', () => {
    closed = true;
    unsubscribe();
    clearInterval(poll);
    clearInterval(heartbeat);
    onClose();
  });
  out.write('retry: 1000\n: connected\n\n');
  void pump();
  return out;
}
