import type { Readable } from 'node:stream';
import type { Clock } from '../kernel/clock.js';
import { DAY } from '../kernel/clock.js';
import type { WebhooksConfig } from '../kernel/config.js';
import type { Db } from '../kernel/db.js';
import { dialect } from '../kernel/db.js';
import { onEventsCommitted } from '../kernel/outbox.js';
import type { SecretBox } from '../kernel/secret-box.js';
import type { MailService } from '../mail/service.js';
import type { MerchantActor } from '../merchant/actor.js';
import { authorize, organizationForCreate } from '../merchant/actor.js';
import { createDeliverer, type AttemptResult } from './delivery.js';
import { createDispatcher } from './dispatcher.js';
import { createEndpointService } from './endpoints.js';
import { eventsRepository } from './events-repository.js';
import { createDeliveryLog } from './log.js';
import { openEventStream } from './stream.js';

/** Payloads are archived, and outbox rows deleted, after this long (Polar's retention). */
export const WEBHOOK_RETENTION_MS = 90 * DAY;

export interface WebhookServiceDeps {
  db: Db;
  clock: Clock;
  config: WebhooksConfig;
  box: SecretBox;
  mail: MailService;
}

/**
 * Webhooks: endpoints, the dispatcher (outbox → one event per subscribed endpoint), delivery, the log, and the event
 * stream. The daemon's worker calls `runOnce` whenever it wakes; tests call `drain` after moving the clock.
 */
export function createWebhookService(deps: WebhookServiceDeps) {
  const { db, clock } = deps;
  const endpoints = createEndpointService({ db, clock, box: deps.box, config: deps.config });
  const dispatcher = createDispatcher({ db, clock });
  const deliverer = createDeliverer({ db, clock, config: deps.config, endpoints, mail: deps.mail });
  const wakeListeners = new Set<() => void>();
  const attemptListeners = new Set<(result: AttemptResult) => void>();
  const runs = new Set<Promise<number>>();
  const streams = new Set<Readable>();
  const wake = () => {
    for (const listener of wakeListeners) listener();
  };
  const log = createDeliveryLog({ db, clock, onRequeued: wake });
  const unsubscribeOutbox = onEventsCommitted(wake);

  async function run(): Promise<number> {
    await dispatcher.dispatchAll();
    let attempts = 0;
    for (;;) {
      const results = await deliverer.deliverBatch();
      for (const result of results) for (const listener of attemptListeners) listener(result);
      attempts += results.length;
      if (results.length === 0) return attempts;
    }
  }

  function runOnce(): Promise<number> {
    const running = run();
    runs.add(running);
    const forget = () => runs.delete(running);
    running.then(forget, forget);
    return running;
  }

  return {
    endpoints,
    log,

    /** Dispatches new outbox rows, then delivers until nothing is due; answers the attempts made. */
    runOnce,

    /**
     * Everything due now, delivered, including runs this daemon's worker already started: tests call it after an
     * action or after moving the clock, instead of sleeping. Retries scheduled later stay until the clock passes them.
     */
    async drain(): Promise<void> {
      for (;;) {
        await Promise.allSettled([...runs]);
        const attempts = await runOnce();
        if (attempts === 0 && runs.size === 0) return;
      }
    },

    /** Wakes the listener when there may be work: an event committed here, a redelivery. */
    onWake(listener: () => void): () => void {
      wakeListeners.add(listener);
      return () => wakeListeners.delete(listener);
    },

    /** Every attempt's outcome, for the daemon's log. */
    onAttempt(listener: (result: AttemptResult) => void): () => void {
      attemptListeners.add(listener);
      return () => attemptListeners.delete(listener);
    },

    /** On SQLite, claims left by a daemon that died are retaken at start (see releaseAllClaims). */
    async recoverClaims(): Promise<number> {
      return dialect(db) === 'sqlite' ? eventsRepository(db).releaseAllClaims() : 0;
    },

    async prune(): Promise<{ archived: number; outbox: number }> {
      return eventsRepository(db).prune(new Date(clock.now().getTime() - WEBHOOK_RETENTION_MS));
    },

    /** The caller's organization's events as server-sent events (see stream.ts). */
    async stream(actor: MerchantActor, input: { organizationId?: string; lastEventId?: number | null }): Promise<Readable> {
      let organizationId: string;
      if (input.organizationId) {
        authorize(actor, input.organizationId, 'read');
        organizationId = input.organizationId;
      } else {
        organizationId = organizationForCreate(actor, null, 'read');
      }
      let stream: Readable;
      stream = await openEventStream(db, organizationId, input.lastEventId ?? null, () => streams.delete(stream));
      streams.add(stream);
      return stream;
    },

    async close(): Promise<void> {
      unsubscribeOutbox();
      for (const stream of streams) stream.push(null);
      await Promise.allSettled([...runs]);
      await deliverer.close();
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
