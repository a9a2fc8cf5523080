import { performance } from 'node:perf_hooks';
import knexFactory, { type Knex } from 'knex';
import type { Clock } from '../kernel/clock.js';
import { MINUTE } from '../kernel/clock.js';
import type { WebhooksConfig } from '../config/index.js';
import type { Db } from '../database/index.js';
import { dialect } from '../database/index.js';
import { uuidv7 } from '../kernel/ids.js';
import type { MailService } from '../mail/service.js';
import type { EndpointService } from './endpoints.js';
import { endpointsRepository, type EndpointRecord } from './endpoints-repository.js';
import { eventsRepository, type WebhookEventRecord } from './events-repository.js';
import { notifyEndpointDisabled } from './notices.js';
import { createPoster, type PostAnswer } from './post.js';
import { signatureHeader } from './signer.js';

/**
 * Polar's policy: 10 attempts; after the n-th failure wait min(2 s·2ⁿ, 20 min), jittered to 50–100 %; an endpoint
 * whose last 10 finished events all failed is disabled. Leases outlast the longest attempt by a minute; no attempt starts
 * that could outlast its claim's lease. A claim takes up to `perEndpoint` events of each endpoint (what its lanes
 * send until the next claims come) and at most `claimLimit` events over all endpoints.
 */
export const WEBHOOK_RETRY = {
  maxAttempts: 10,
  baseMs: 2_000,
  maxBackoffMs: 20 * MINUTE,
  perEndpoint: 400,
  claimLimit: 4000,
  leaseMarginMs: MINUTE,
  failureThreshold: 10,
} as const;
export { RESPONSE_CHARS } from './post.js';

/**
 * The delivery worker's database: on PostgreSQL a pool of its own (two connections: a round and a fallback write),
 * so its rounds neither queue behind API requests for the API's pool nor take connections from it. SQLite has one
 * connection for everything.
 */
export function deliveryDb(db: Db): Db {
  if (dialect(db) !== 'postgres') return db;
  return knexFactory({ ...(db.client as { config: Knex.Config }).config, pool: { min: 0, max: 2 } });
}

/**
 * The wait a 429 or 503 asks for in `Retry-After` (delay-seconds or an HTTP-date, RFC 9110 §10.2.3), capped at the
 * schedule's longest wait so a receiver cannot park an event for days; null when absent or unreadable. An HTTP-date
 * is the receiver's wall clock, so it is compared with `wallNow`, not with the daemon's (possibly simulated) clock.
 */
export function retryAfterMs(value: string | undefined, wallNow: number): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    const at = HTTP_DATES.some((form) => form.test(text))
      ? Date.parse(/GMT$/.test(text) ? text : `${text} GMT`)
      : Number.NaN;
    if (Number.isNaN(at)) return null;
    ms = Math.max(0, at - wallNow);
  }
  return Math.min(ms, WEBHOOK_RETRY.maxBackoffMs);
}

// The IMF-fixdate and the two obsolete forms a recipient must accept (RFC 9110 §5.6.7); asctime's is GMT too.
const HTTP_DATES = [
  /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
  /^[A-Z][a-z]+, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT$/,
  /^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/,
];

export function retryDelayMs(failedAttempts: number, random: () => number = Math.random): number {
  const nominal = Math.min(WEBHOOK_RETRY.baseMs * 2 ** failedAttempts, WEBHOOK_RETRY.maxBackoffMs);
  return Math.round(nominal * (0.5 + random() * 0.5));
}

/** A sent attempt, before it is recorded. */
export interface AttemptOutcome {
  event: WebhookEventRecord;
  endpoint: EndpointRecord | undefined;
  succeeded: boolean;
  gone: boolean;
  /** No further attempt: succeeded, gone, out of attempts, or the endpoint is gone. */
  final: boolean;
  httpCode: number | null;
  response: string;
  durationMs: number;
  sentAt: Date;
  at: Date;
  retryAt: Date | null;
}

export function resultOf(outcome: AttemptOutcome, endpointDisabled = false): AttemptResult {
  const { event } = outcome;
  return {
    eventId: event.id,
    endpointId: event.endpointId,
    attempt: event.attempts,
    succeeded: outcome.succeeded,
    httpCode: outcome.httpCode,
    retryAt: outcome.retryAt,
    endpointDisabled,
    requestId: event.requestId,
  };
}

export interface AttemptResult {
  eventId: string;
  endpointId: string;
  attempt: number;
  succeeded: boolean;
  httpCode: number | null;
  /** Set when the event will be tried again. */
  retryAt: Date | null;
  endpointDisabled: boolean;
  /** The request that caused the event (X-Request-Id), if any: the worker logs the attempt under it. */
  requestId: string | null;
}

export function createDeliverer(deps: {
  clock: Clock;
  signingClock: Clock;
  config: WebhooksConfig;
  endpoints: EndpointService;
  mail: MailService;
}) {
  const { clock, signingClock, config, endpoints, mail } = deps;
  const poster = createPoster({ timeoutMs: config.timeoutMs, allowPrivateUrls: config.allowPrivateUrls });

  /** Sends one event (no database work): the run loop hands the outcome to the round that records it. */
  async function send(
    event: WebhookEventRecord,
    endpoint: EndpointRecord | undefined,
    secrets: string[] | null,
  ): Promise<AttemptOutcome> {
    const sentAt = clock.now();
    let outcome: PostAnswer;
    let durationMs = 0;
    if (!endpoint || event.payload === null || !secrets) {
      outcome = { httpCode: null, response: endpoint ? 'the payload was archived' : 'the endpoint no longer exists' };
    } else {
      const timestamp = Math.floor(signingClock.now().getTime() / 1000);
      const headers = {
        'content-type': 'application/json',
        'user-agent': 'till webhooks',
        'webhook-id': event.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(secrets, event.id, timestamp, event.payload),
      };
      const started = performance.now();
      outcome = await poster.post(endpoint.url, event.payload, headers);
      durationMs = Math.round(performance.now() - started);
    }
    // Redirects are failures: a receiver that moved must be updated, not followed (Standard Webhooks).
    const succeeded = outcome.httpCode !== null && outcome.httpCode >= 200 && outcome.httpCode < 300;
    const gone = outcome.httpCode === 410;
    // The budget counts from the latest replay (a replay gets the full schedule again); `attempts` never resets.
    const sinceReplay = event.attempts - event.replayBase;
    const final = succeeded || gone || sinceReplay >= WEBHOOK_RETRY.maxAttempts || !endpoint;
    const at = clock.now();
    const asked =
      outcome.httpCode === 429 || outcome.httpCode === 503
        ? retryAfterMs(outcome.retryAfter, signingClock.now().getTime())
        : null;
    const retryAt = final ? null : new Date(at.getTime() + (asked ?? retryDelayMs(sinceReplay)));
    return {
      event,
      endpoint,
      succeeded,
      gone,
      final,
      httpCode: outcome.httpCode,
      response: outcome.response,
      durationMs,
      sentAt,
      at,
      retryAt,
    };
  }

  /**
   * Records a failed attempt, in the round's transaction, and applies the disabling rules (410 Gone; the endpoint's
   * last 10 finished events all failed). Failures are rare, so each keeps its own statements.
   */
  async function recordFailure(trx: Db, failure: AttemptOutcome): Promise<AttemptResult> {
    const { event, endpoint, final, gone, at } = failure;
    let endpointDisabled = false;
    const events = eventsRepository(trx);
    const applied = await events.finishAttempt(event, {
      status: final ? 'failed' : 'pending',
      succeeded: final ? false : event.succeeded,
      httpCode: failure.httpCode,
      nextAttemptAt: failure.retryAt,
      at,
    });
    if (endpoint) {
      await events.insertDelivery({
        id: uuidv7(at.getTime()),
        organizationId: event.organizationId,
        endpointId: event.endpointId,
        webhookEventId: event.id,
        attempt: event.attempts,
        succeeded: false,
        httpCode: failure.httpCode,
        response: failure.response,
        durationMs: failure.durationMs,
        createdAt: failure.sentAt,
      });
      const reason = !applied
        ? null
        : gone
          ? 'it answered 410 Gone'
          : final &&
              (await events.lastFinished(endpoint.id, WEBHOOK_RETRY.failureThreshold)).filter(
                (status) => status === 'failed',
              ).length === WEBHOOK_RETRY.failureThreshold
            ? `its last ${WEBHOOK_RETRY.failureThreshold} events all failed`
            : null;
      if (reason && (await endpointsRepository(trx).disable(endpoint.id, at))) {
        endpointDisabled = true;
        await events.skipPending(endpoint.id, at);
        await notifyEndpointDisabled(trx, mail, endpoint, reason);
      }
    }
    return resultOf(failure, endpointDisabled);
  }

  return {
    send,
    recordFailure,

    /** The secrets that sign this endpoint's deliveries now: opened once per run, not once per event. */
    secretsFor(endpoint: EndpointRecord): string[] {
      return endpoints.signingSecrets(endpoint, clock.now());
    },

    async close(): Promise<void> {
      await poster.close();
    },
  };
}
