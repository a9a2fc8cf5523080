import type { Readable } from 'node:stream';
import type { Clock } from '../kernel/clock.js';
import { DAY } from '../kernel/clock.js';
import type { WebhooksConfig } from '../config/index.js';
import type { Db } from '../database/index.js';
import { dialect } from '../database/index.js';
import { onEventsCommitted } from '../kernel/outbox.js';
import type { SecretBox } from '../kernel/secret-box.js';
import type { MailService } from '../mail/service.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { authorize, organizationForCreate } from '../polar-api/actor.js';
import { createDeliverer, deliveryDb, type AttemptResult } from './delivery.js';
import { createDispatcher } from './dispatcher.js';
import { createEndpointService } from './endpoints.js';
import { eventsRepository } from './events-repository.js';
import { createDeliveryLog } from './log.js';
import { createDeliveryPump } from './pump.js';
import { openEventStream } from './stream.js';

/** Payloads are archived, and outbox rows deleted, after this long (Polar's retention). */
export const WEBHOOK_RETENTION_MS = 90 * DAY;

export interface WebhookServiceDeps {
  db: Db;
  clock: Clock;
  config: WebhooksConfig;
  box: SecretBox;
  mail: MailService;
  /**
   * The time in `webhook-timestamp`, which receivers check against their own wall clock to refuse replays: the
   * daemon's clock, except under the simulated clock, whose time would be refused (`systemClock` then).
   */
  signingClock?: Clock;
}

/**
 * Webhooks: endpoints, the dispatcher (outbox → one event per subscribed endpoint), delivery, the log, and the event
 * stream. The daemon's worker calls `runOnce` whenever it wakes or polls; tests call `drain` after moving the clock.
 */
export function createWebhookService(deps: WebhookServiceDeps) {
  const { db, clock } = deps;
  const workerDb = deliveryDb(db);
  const endpoints = createEndpointService({ db, clock, box: deps.box, config: deps.config });
  const deliverer = createDeliverer({
    clock,
    signingClock: deps.signingClock ?? clock,
    config: deps.config,
    endpoints,
    mail: deps.mail,
  });
  const wakeListeners = new Set<() => void>();
  const attemptListeners = new Set<(result: AttemptResult) => void>();
  const errorListeners = new Set<(error: unknown) => void>();
  const streams = new Set<Readable>();
  const pump = createDeliveryPump({
    db: workerDb,
    clock,
    config: deps.config,
    dispatcher: createDispatcher({ clock }),
    deliverer,
    onResult: (result) => {
      for (const listener of attemptListeners) listener(result);
    },
    onError: (error) => {
      for (const listener of errorListeners) listener(error);
    },
  });
  const wake = () => {
    for (const listener of wakeListeners) listener();
  };
  const log = createDeliveryLog({
    db,
    clock,
    onRequeued: () => {
      pump.noteDue();
      wake();
    },
  });
  const unsubscribeOutbox = onEventsCommitted(() => {
    pump.noteCommitted();
    wake();
  });

  return {
    endpoints,
    log,

    /** A delivery round (fan out, record, claim), coalesced with others; the runs it claims go on in the background. */
    runOnce: () => pump.runOnce(),

    /**
     * Everything due now, delivered and recorded, including runs this daemon's worker already started: tests call it
     * after an action or after moving the clock, instead of sleeping. Retries scheduled later stay until the clock
     * passes them.
     */
    drain: () => pump.drain(),

    /** The earliest time after `after` at which a delivery falls due (the simulated clock steps there). */
    nextDueAfter(after: Date): Promise<Date | null> {
      return eventsRepository(db).nextAttemptAfter(after);
    },

    /** Wakes the listener when there may be work: an event committed here, a redelivery. */
    onWake(listener: () => void): () => void {
      wakeListeners.add(listener);
      return () => wakeListeners.delete(listener);
    },

    /** Rounds and runs that failed without anyone waiting on them, for the daemon's log. */
    onError(listener: (error: unknown) => void): () => void {
      errorListeners.add(listener);
      return () => errorListeners.delete(listener);
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
    async stream(
      actor: MerchantActor,
      input: { organizationId?: string; lastEventId?: number | null },
    ): Promise<Readable> {
      let organizationId: string;
      if (input.organizationId) {
        authorize(actor, input.organizationId, 'read');
        organizationId = input.organizationId;
      } else {
        organizationId = organizationForCreate(actor, null, 'read');
      }
      const stream: Readable = await openEventStream(db, organizationId, input.lastEventId ?? null, () =>
        streams.delete(stream),
      );
      streams.add(stream);
      return stream;
    },

    async close(): Promise<void> {
      unsubscribeOutbox();
      for (const stream of streams) stream.push(null);
      await pump.close();
      await deliverer.close();
      if (workerDb !== db) await workerDb.destroy();
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
