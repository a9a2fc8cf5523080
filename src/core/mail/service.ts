import type { Knex } from 'knex';
import type { Clock } from '../kernel/clock.js';
import { HOUR, MINUTE, SECOND } from '../kernel/clock.js';
import type { Db } from '../database/index.js';
import { uuidv7 } from '../kernel/ids.js';
import { withRequestId } from '../kernel/request-context.js';
import type { MailConfig } from '../config/index.js';
import type { SecretBox } from '../kernel/secret-box.js';
import { mailsRepository, type MailRecord, type MailStatus } from './repository.js';
import type { MailContent } from './templates.js';
import { createTransport, type MailTransport } from './transports.js';

/** A mail with its bodies opened, as the admin API shows it. */
export interface Mail extends Omit<MailRecord, 'sealedText' | 'sealedHtml'> {
  text: string;
  html: string;
}

export type MailSummary = Omit<MailRecord, 'sealedText' | 'sealedHtml'>;

/**
 * Retry schedule: the first retry after 30 s, doubling up to an hour between attempts; after 10 attempts (about
 * 3 hours, by when the one-hour links in account mail have expired) the mail is marked failed. A claim is leased for 5
 * minutes: far longer than a send may take (transports time out after 30 s), so only a dead worker's claim runs out.
 */
export const MAIL_RETRY = {
  baseDelayMs: 30 * SECOND,
  maxDelayMs: HOUR,
  maxAttempts: 10,
  leaseMs: 5 * MINUTE,
  batchSize: 10,
} as const;

export function retryDelayMs(attempt: number): number {
  return Math.min(MAIL_RETRY.baseDelayMs * 2 ** Math.max(0, attempt - 1), MAIL_RETRY.maxDelayMs);
}

export interface MailServiceDeps {
  db: Db;
  clock: Clock;
  config: MailConfig;
  box: SecretBox;
  transport?: MailTransport;
}

export type MailService = ReturnType<typeof createMailService>;

/** A send that failed: retried at `retryAt`, or given up on when that is null. */
export interface DeliveryFailure {
  id: string;
  attempts: number;
  error: string;
  retryAt: Date | null;
}

export function createMailService(deps: MailServiceDeps) {
  const { db, clock, config, box } = deps;
  const transport = deps.transport ?? createTransport(config);
  const listeners = new Set<() => void>();
  const failureListeners = new Set<(failure: DeliveryFailure) => void>();
  // Every delivery run of this daemon, so drain() can wait for one the worker started.
  const runs = new Set<Promise<number>>();
  // Ids are UUIDv7 from the injected clock; stepping past the last one keeps them strictly increasing within this
  // daemon even when several mails share a millisecond (or a test clock stands still), so newest-first is exact.
  let lastIdMs = 0;
  // The row id is authenticated with each body, so a body copied into another row no longer opens.
  const context = (id: string, part: 'text' | 'html') => `mails:${id}:${part}`;

  function open(record: MailRecord): Mail {
    const { sealedText, sealedHtml, ...rest } = record;
    return {
      ...rest,
      text: box.open(sealedText, context(record.id, 'text')),
      html: box.open(sealedHtml, context(record.id, 'html')),
    };
  }

  function notify(): void {
    for (const listener of listeners) listener();
  }

  async function deliver(mail: MailRecord): Promise<void> {
    const repo = mailsRepository(db);
    let failure: string | null = null;
    try {
      const opened = open(mail);
      await transport.send({
        id: mail.id,
        from: mail.from,
        to: mail.to,
        subject: mail.subject,
        text: opened.text,
        html: opened.html,
      });
    } catch (error) {
      failure = (error instanceof Error ? error.message : String(error)).slice(0, 1000) || 'send failed';
    }
    const now = clock.now();
    if (failure === null) {
      await repo.markSent(mail.id, mail.attempts, now);
      return;
    }
    const retryAt =
      mail.attempts < MAIL_RETRY.maxAttempts ? new Date(now.getTime() + retryDelayMs(mail.attempts)) : null;
    await repo.markFailed(mail.id, mail.attempts, failure, retryAt, now);
    for (const listener of failureListeners)
      listener({ id: mail.id, attempts: mail.attempts, error: failure, retryAt });
  }

  /** Claims one batch of due mails and sends it; answers how many were claimed. */
  async function deliverBatch(): Promise<number> {
    if (transport.kind === 'outbox') return 0;
    const now = clock.now();
    const claimed = await mailsRepository(db).claimDue(
      now,
      new Date(now.getTime() + MAIL_RETRY.leaseMs),
      MAIL_RETRY.batchSize,
    );
    // A peer's refusal is recorded on the mail; what rejects here is recording it (the database went away).
    const failed = (
      await Promise.allSettled(claimed.map((mail) => withRequestId(mail.requestId, () => deliver(mail))))
    ).find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    return claimed.length;
  }

  function deliverDue(): Promise<number> {
    const run = deliverBatch();
    runs.add(run);
    const forget = () => runs.delete(run);
    run.then(forget, forget);
    return run;
  }

  return {
    transportKind: transport.kind,

    /**
     * Writes a mail; pass the transaction of the change that causes it, so both commit or neither does. Delivery
     * workers are woken once it has committed.
     */
    async enqueue(
      trx: Db,
      input: { kind: string; to: string; userId: string | null; content: MailContent },
    ): Promise<string> {
      const now = clock.now();
      lastIdMs = Math.max(now.getTime(), lastIdMs + 1);
      const id = uuidv7(lastIdMs);
      const kept = transport.kind === 'outbox';
      await mailsRepository(trx).insert({
        id,
        kind: input.kind,
        userId: input.userId,
        from: config.from,
        to: input.to,
        subject: input.content.subject,
        sealedText: box.seal(input.content.text, context(id, 'text')),
        sealedHtml: box.seal(input.content.html, context(id, 'html')),
        status: kept ? 'stored' : 'pending',
        attempts: 0,
        nextAttemptAt: kept ? null : now,
        lockedUntil: null,
        lastError: null,
        sentAt: null,
        createdAt: now,
        updatedAt: now,
      });
      if (!kept) {
        if (trx.isTransaction) (trx as Knex.Transaction).executionPromise.then(notify, () => undefined);
        else notify();
      }
      return id;
    },

    /** Sends one batch of due mail (what the worker calls on each tick); answers how many mails it claimed. */
    deliverDue,

    /**
     * Sends everything due now, waiting for deliveries already under way on this daemon: tests call it after an
     * action instead of sleeping. Mail scheduled for later (a retry) stays until the clock has moved past it.
     */
    async drain(): Promise<void> {
      for (;;) {
        await Promise.allSettled([...runs]);
        const claimed = await deliverDue();
        if (claimed === 0 && runs.size === 0) return;
      }
    },

    /** The earliest time after `after` at which a mail falls due (the simulated clock steps there). */
    nextDueAfter(after: Date): Promise<Date | null> {
      return mailsRepository(db).nextDueAfter(after);
    },

    /** Calls the listener whenever this daemon has committed a mail to send; answers the unsubscribe. */
    onEnqueued(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    /** Calls the listener after each failed send (the daemon logs them); answers the unsubscribe. */
    onDeliveryFailed(listener: (failure: DeliveryFailure) => void): () => void {
      failureListeners.add(listener);
      return () => failureListeners.delete(listener);
    },

    async list(
      filter: { to?: string; kind?: string; status?: MailStatus; limit?: number } = {},
    ): Promise<MailSummary[]> {
      const rows = await mailsRepository(db).list({
        ...filter,
        to: filter.to?.toLowerCase(),
        limit: filter.limit ?? 50,
      });
      return rows.map(({ sealedText: _text, sealedHtml: _html, ...summary }) => summary);
    },

    async get(id: string): Promise<Mail | null> {
      const record = await mailsRepository(db).findById(id);
      return record ? open(record) : null;
    },

    async close(): Promise<void> {
      await Promise.allSettled([...runs]);
      await transport.close();
    },
  };
}
