import { performance } from 'node:perf_hooks';
import type { Clock } from '../kernel/clock.js';
import type { WebhooksConfig } from '../config/index.js';
import type { Db } from '../database/index.js';
import { dialect, transaction } from '../database/index.js';
import { uuidv7 } from '../kernel/ids.js';
import { CLAIM_LOCK, claimsRepository, type SuccessRecord } from './claims.js';
import { resultOf, WEBHOOK_RETRY, type AttemptOutcome, type AttemptResult, type createDeliverer } from './delivery.js';
import { DISPATCH_LOCK, type createDispatcher } from './dispatcher.js';
import { endpointsRepository, type EndpointRecord } from './endpoints-repository.js';
import type { WebhookEventRecord } from './events-repository.js';
import { createOutlets, laneOf } from './outlets.js';

/**
 * While work keeps arriving, a round starts no sooner than this after the last one ended: each commit and each
 * finished run asks for one, and a round costs about the same whether it carries one outcome or fifty. On SQLite also
 * no sooner than the last one held the connection: the API waits for the one connection while a round holds it, so
 * the worker leaves it at least half the time.
 */
export const ROUND_GAP_MS = 5;

/**
 * A round claims when it has reason to (it fanned events out, recorded outcomes, a run ended, a redelivery or a drain
 * asked), and otherwise at most this often: retries fall due by the clock, and another daemon may have left work. The
 * worker polls every second, so each poll still claims; a busy API's commits that concern no endpoint do not.
 */
export const SPECULATIVE_CLAIM_MS = 500;

/**
 * Outbox batches (200 rows each) a round fans out: enough that one endpoint's dispatch keeps up with a few thousand
 * commits a second at a round every 20-50 ms; on SQLite fewer, since the API waits for the one connection meanwhile.
 */
const DISPATCH_BATCHES = { sqlite: 2, postgres: 5 } as const;

/** An endpoint whose queued events drop to this many asks for a claim, so that a backlog keeps it going. */
const LOW_WATER = WEBHOOK_RETRY.perEndpoint / 2;

export interface RoundStats {
  dispatched: number;
  recorded: number;
  claimed: number;
  /** How long the round held its connection (not counting the wait for it). */
  heldMs: number;
}

interface Taken {
  successes: AttemptOutcome[];
  failures: AttemptOutcome[];
  releases: WebhookEventRecord[];
}

const recordedOf = (taken: Taken) => taken.successes.length + taken.failures.length + taken.releases.length;

interface Waiter {
  resolve(stats: RoundStats): void;
  reject(error: unknown): void;
}

/**
 * The delivery pipeline of one daemon. A round is one transaction: fan new outbox rows out, record the outcomes the
 * lanes have sent back (and give back what a stopped lane did not send), and claim the next events; it never waits for
 * a delivery. Claimed events go out through `outlets.ts`: one lane per endpoint and customer, sent in order and stopped
 * at the first failure, and up to the endpoint's `max_concurrency` lanes at once, so one customer's order holds while
 * other customers, and other endpoints, keep going. A round also claims what follows the events still queued here, so
 * a busy endpoint does not idle while a round records and claims. Rounds are serialized and coalesced: a request
 * during a round gets the next one, and no round starts within ROUND_GAP_MS of the last unless a caller is waiting on
 * it (drain).
 */
export function createDeliveryPump(deps: {
  db: Db;
  clock: Clock;
  config: WebhooksConfig;
  dispatcher: ReturnType<typeof createDispatcher>;
  deliverer: ReturnType<typeof createDeliverer>;
  onResult: (result: AttemptResult) => void;
  onError: (error: unknown) => void;
}) {
  const { db, clock, config, dispatcher, deliverer } = deps;
  const sharesConnection = dialect(db) === 'sqlite';
  // Lanes that stopped short while a claim was under way: what that claim took of them waits behind their stop.
  let stoppedDuringClaim: Set<string> | null = null;
  const successes: AttemptOutcome[] = [];
  const failures: AttemptOutcome[] = [];
  const releases: WebhookEventRecord[] = [];
  let dispatchWanted = true;
  let claimWanted = true;
  let closed = false;
  const outlets = createOutlets({
    clock,
    config,
    deliverer,
    closed: () => closed,
    lowWater: LOW_WATER,
    onSuccess: (outcome) => successes.push(outcome),
    onFailure: (outcome) => failures.push(outcome),
    onRelease: (events) => releases.push(...events),
    onStopped: (laneId) => stoppedDuringClaim?.add(laneId),
    onRoom: (broken) => (broken ? kick() : kick({ claim: true })),
    onError: (error) => deps.onError(error),
  });

  let waiters: Waiter[] = [];
  let urgent = false;
  let current: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let lastEnd = -Infinity;
  let lastHeld = 0;
  let lastClaim = -Infinity;

  const queued = () => successes.length + failures.length + releases.length;

  function schedule(): void {
    if (current || waiters.length === 0) return;
    const wait = urgent ? 0 : lastEnd + Math.max(ROUND_GAP_MS, sharesConnection ? lastHeld : 0) - performance.now();
    if (wait > 0) {
      timer ??= setTimeout(() => {
        timer = null;
        schedule();
      }, wait);
      return;
    }
    if (timer) clearTimeout(timer);
    timer = null;
    const mine = waiters;
    waiters = [];
    urgent = false;
    current = round().then(
      (stats) => {
        lastHeld = stats.heldMs;
        mine.forEach((waiter) => waiter.resolve(stats));
      },
      (error) => mine.forEach((waiter) => waiter.reject(error)),
    );
    void current.finally(() => {
      current = null;
      lastEnd = performance.now();
      schedule();
    });
  }

  function request(options: { dispatch?: boolean; claim?: boolean; urgent?: boolean }): Promise<RoundStats> {
    if (options.dispatch) dispatchWanted = true;
    if (options.claim) claimWanted = true;
    if (options.urgent) urgent = true;
    return new Promise((resolve, reject) => {
      waiters.push({ resolve, reject });
      schedule();
    });
  }

  /** A round nobody waits on (a run finished, an event committed): its failure is only logged. */
  function kick(options: { dispatch?: boolean; claim?: boolean } = {}): void {
    if (closed) return;
    request(options).catch(deps.onError);
  }

  async function round(): Promise<RoundStats> {
    const dispatch = dispatchWanted && !closed;
    const claimRequested = claimWanted;
    dispatchWanted = false;
    claimWanted = false;
    if (!dispatch && !claimRequested && queued() === 0) return { dispatched: 0, recorded: 0, claimed: 0, heldMs: 0 };

    let taken: Taken | null = null;
    let dispatched = 0;
    let claimed: WebhookEventRecord[] = [];
    let leaseUntil = clock.now();
    let endpoints = new Map<string, EndpointRecord>();
    let heldMs = 0;
    const results: AttemptResult[] = [];
    try {
      // On PostgreSQL the round holds its locks from its first statement (see the `relaxed` transaction option): rounds of all
      // daemons take turns, always in one lock order, and the locks cost no round trips of their own.
      await transaction(
        db,
        async (trx) => {
          // Taken once the connection is ours: on SQLite a round may wait behind the API for it, and what the runs
          // sent back meanwhile goes into this round, not the next.
          const held = performance.now();
          taken = { successes: successes.splice(0), failures: failures.splice(0), releases: releases.splice(0) };
          const at = clock.now();
          if (dispatch) {
            const fanned = await dispatcher.dispatchIn(trx, { locked: true, batches: DISPATCH_BATCHES[dialect(db)] });
            dispatched = fanned.events;
            // A few batches a round keep the connection's hold short; the rest goes in the next round.
            if (fanned.more) dispatchWanted = true;
          }
          const claims = claimsRepository(trx);
          // Releases first: a failure that disables its endpoint skips what waits, and the rest of its run is among it.
          if (taken.releases.length > 0) await claims.release(taken.releases, at);
          if (taken.successes.length > 0) await claims.recordSuccesses(taken.successes.map(successRecord), at);
          for (const failure of taken.failures) results.push(await deliverer.recordFailure(trx, failure));
          const claimDue =
            claimRequested ||
            taken.successes.length + taken.failures.length > 0 ||
            dispatched > 0 ||
            held - lastClaim >= SPECULATIVE_CLAIM_MS;
          if (!closed && claimDue) {
            lastClaim = held;
            // Read after dispatching, so the events just created are due.
            const now = clock.now();
            leaseUntil = new Date(now.getTime() + config.timeoutMs + WEBHOOK_RETRY.leaseMarginMs);
            // An event whose failure or give-back is not yet written holds back its customer's later events even if
            // the clock has passed its lease: only this process can finish it in order. Events this process holds
            // (`mine`: claimed, not yet written) are passed over, and what follows them is claimed to queue behind.
            const blocking = [...failures.map((outcome) => outcome.event.id), ...releases.map((event) => event.id)];
            const mine = [...outlets.held(), ...successes.map((outcome) => outcome.event.id)];
            stoppedDuringClaim = new Set();
            claimed = await claims.claimHeads(now, leaseUntil, {
              perEndpoint: WEBHOOK_RETRY.perEndpoint,
              limit: WEBHOOK_RETRY.claimLimit,
              busy: outlets.fullerThan(WEBHOOK_RETRY.perEndpoint),
              mine,
              blocking,
              locked: true,
            });
            if (claimed.length > 0) {
              const ids = [...new Set(claimed.map((event) => event.endpointId))];
              endpoints = new Map(
                (await endpointsRepository(trx).findByIds(ids)).map((endpoint) => [endpoint.id, endpoint]),
              );
            }
          }
          heldMs = performance.now() - held;
        },
        { relaxed: { advisoryLocks: dispatch ? [DISPATCH_LOCK, CLAIM_LOCK] : [CLAIM_LOCK] } },
      );
    } catch (error) {
      stoppedDuringClaim = null;
      if (dispatch) dispatchWanted = true;
      if (taken) await recordOneByOne(taken);
      throw error;
    }
    const done = taken as Taken | null;
    for (const success of done?.successes ?? []) results.push(resultOf(success));
    for (const result of results) deps.onResult(result);
    const stopped = stoppedDuringClaim ?? new Set<string>();
    stoppedDuringClaim = null;
    const byEndpoint = new Map<string, WebhookEventRecord[]>();
    for (const event of claimed) {
      // Its lane stopped short while this claim was under way: what follows the failure waits for it.
      if (stopped.has(laneOf(event))) {
        releases.push(event);
        continue;
      }
      const list = byEndpoint.get(event.endpointId);
      if (list) list.push(event);
      else byEndpoint.set(event.endpointId, [event]);
    }
    if (claimed.length > 0 && stopped.size > 0) kick();
    for (const [endpointId, events] of byEndpoint)
      outlets.enqueue(endpointId, endpoints.get(endpointId), events, leaseUntil);
    if (dispatchWanted) kick();
    return { dispatched, recorded: done ? recordedOf(done) : 0, claimed: claimed.length, heldMs };
  }

  /**
   * When a round's transaction fails (on PostgreSQL, say, a deadlock with an endpoint being deleted), each outcome is
   * written on its own, so one that cannot be written does not take the others with it.
   */
  async function recordOneByOne(taken: Taken): Promise<void> {
    const at = clock.now();
    const one = (work: (trx: Db) => Promise<unknown>) => transaction(db, work, { relaxed: true }).catch(deps.onError);
    for (const event of taken.releases) await one((trx) => claimsRepository(trx).release([event], at));
    for (const success of taken.successes) {
      await one((trx) => claimsRepository(trx).recordSuccesses([successRecord(success)], at));
      deps.onResult(resultOf(success));
    }
    for (const failure of taken.failures)
      await one(async (trx) => deps.onResult(await deliverer.recordFailure(trx, failure)));
  }

  async function idle(): Promise<void> {
    while (outlets.size > 0 || current) await Promise.allSettled([outlets.idle(), current]);
  }

  return {
    /** A round soon (coalesced with others): fans out, records, and claims if there is reason to; answers its figures. */
    runOnce(): Promise<RoundStats> {
      return request({ dispatch: true });
    },

    /**
     * Notes that an event committed here, so the next round fans out (and claims what that creates); the worker starts
     * that round (runOnce), not this, so nothing is claimed before it has recovered the claims a previous process left.
     */
    noteCommitted(): void {
      dispatchWanted = true;
    },

    /** Notes that events were made due outside a round (a redelivery), so the next round claims. */
    noteDue(): void {
      claimWanted = true;
    },

    /** Everything due now, sent and recorded, including runs already under way. */
    async drain(): Promise<void> {
      for (;;) {
        await idle();
        const stats = await request({ dispatch: true, claim: true, urgent: true });
        if (stats.dispatched + stats.recorded + stats.claimed === 0 && outlets.size === 0 && queued() === 0) return;
      }
    },

    /** Stops claiming; runs end after their current attempt, and what they sent is recorded. */
    async close(): Promise<void> {
      closed = true;
      await idle();
      if (queued() > 0) await request({ urgent: true }).catch(deps.onError);
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}

function successRecord(outcome: AttemptOutcome): SuccessRecord {
  return {
    event: outcome.event,
    httpCode: outcome.httpCode!,
    response: outcome.response,
    durationMs: outcome.durationMs,
    sentAt: outcome.sentAt,
    deliveryId: uuidv7(outcome.at.getTime()),
  };
}
