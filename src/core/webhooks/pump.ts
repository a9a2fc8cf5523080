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

/** A sender whose queue drops to this many events asks for a claim, so that a backlog keeps it going. */
const LOW_WATER = WEBHOOK_RETRY.runLength / 2;

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

interface Sender {
  /** Claimed and not yet sent, in order; each event with the endpoint and lease of its claim. */
  queue: Array<{ event: WebhookEventRecord; endpoint: EndpointRecord | undefined; leaseUntil: Date }>;
  sending: WebhookEventRecord | null;
  done: Promise<void>;
}

interface Waiter {
  resolve(stats: RoundStats): void;
  reject(error: unknown): void;
}

/**
 * The delivery pipeline of one daemon. A round is one transaction: fan new outbox rows out, record the outcomes the
 * runs have sent back (and give back what a failed run did not send), and claim the next runs; it never waits for
 * a delivery. Each endpoint with claimed events has a sender of its own, which sends them one after another and stops
 * at the first failure, so an endpoint's order holds while the others keep going. A round also claims for endpoints
 * whose sender is still busy (what follows its queue), so a busy endpoint does not idle between runs while a round
 * records and claims (on PostgreSQL under API load, 20-50 ms between runs of a few events each, which left a single
 * endpoint's deliveries behind its commits). Rounds are serialized and coalesced: a request during a round gets the
 * next one, and no round starts within ROUND_GAP_MS of the last unless a caller is waiting on it (drain).
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
  const senders = new Map<string, Sender>();
  // How often each endpoint's sender stopped short (a failure, a lease, closing): a claim taken meanwhile is given back.
  const stops = new Map<string, number>();
  const successes: AttemptOutcome[] = [];
  const failures: AttemptOutcome[] = [];
  const releases: WebhookEventRecord[] = [];
  let dispatchWanted = true;
  let claimWanted = true;
  let closed = false;

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

  /**
   * Queues a claimed run behind what the endpoint's sender still has to send, or starts a sender for it. An endpoint
   * is claimed again while its sender is busy (see the claim in `round`), so a busy endpoint sends without waiting a
   * round between runs; its queue stays in claim order, which is its FIFO order.
   */
  function enqueue(
    endpointId: string,
    endpoint: EndpointRecord | undefined,
    events: WebhookEventRecord[],
    leaseUntil: Date,
  ): void {
    const items = events.map((event) => ({ event, endpoint, leaseUntil }));
    const sender = senders.get(endpointId);
    if (sender) {
      sender.queue.push(...items);
      return;
    }
    const started: Sender = { queue: items, sending: null, done: Promise.resolve() };
    senders.set(endpointId, started);
    started.done = send(endpointId, started);
  }

  /** One endpoint's events, one after another, until its queue is empty or an attempt fails. */
  async function send(endpointId: string, sender: Sender): Promise<void> {
    let short = false;
    let broken = false;
    let secretsOf: EndpointRecord | undefined | null = null;
    let secrets: string[] | null = null;
    try {
      while (sender.queue.length > 0) {
        const { event, endpoint, leaseUntil } = sender.queue[0]!;
        // No attempt that could outlast the claim's lease: past it another daemon may take the event.
        if (closed || clock.now().getTime() + config.timeoutMs > leaseUntil.getTime()) {
          short = true;
          break;
        }
        // Each claim brings the endpoint as it was then; its secrets are opened once per claim, not per event.
        if (endpoint !== secretsOf) {
          secrets = endpoint ? deliverer.secretsFor(endpoint) : null;
          secretsOf = endpoint;
        }
        sender.queue.shift();
        sender.sending = event;
        const outcome = await deliverer.send(event, endpoint, secrets);
        sender.sending = null;
        if (!outcome.succeeded) {
          failures.push(outcome);
          short = true;
          break;
        }
        successes.push(outcome);
        // Claim more before the queue runs dry, so a backlog does not wait a round at each run's end.
        if (sender.queue.length === LOW_WATER) kick({ claim: true });
      }
    } catch (error) {
      broken = true;
      short = true;
      deps.onError(error);
    }
    // From here on synchronous, so no claim can join the queue after it was given back. What was not sent waits again
    // behind the event before it (released in the same transaction that records that event's outcome); a claim still
    // under way when this sender stopped short is given back too (see `stops`).
    releases.push(...(sender.sending ? [sender.sending] : []), ...sender.queue.map((item) => item.event));
    sender.queue = [];
    senders.delete(endpointId);
    if (short) stops.set(endpointId, (stops.get(endpointId) ?? 0) + 1);
    // A sender that broke (its endpoint's secret cannot be opened, say) is retried by the poll, not at once.
    if (broken) kick();
    else kick({ claim: true });
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
    let stopsAtClaim = new Map<string, number>();
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
            const fanned = await dispatcher.dispatchIn(trx, { locked: true });
            dispatched = fanned.events;
            // One batch a round keeps the connection's hold short; the rest goes in the next round.
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
            // An endpoint whose failure or give-back is not yet written is left out even if the clock has passed its
            // lease: only this process can finish it in order. One whose sender is busy is claimed again, after what
            // this process holds of it (`mine`: claimed, not yet written), unless its sender has a run's worth queued.
            const active = [...senders.values()];
            const busy = new Set([...failures.map(endpointOf), ...releases.map((event) => event.endpointId)]);
            for (const [endpointId, sender] of senders)
              if (sender.queue.length >= WEBHOOK_RETRY.runLength) busy.add(endpointId);
            const mine = [
              ...active.flatMap((sender) => [
                ...(sender.sending ? [sender.sending.id] : []),
                ...sender.queue.map((item) => item.event.id),
              ]),
              ...successes.map((outcome) => outcome.event.id),
            ];
            stopsAtClaim = new Map(stops);
            claimed = await claims.claimRuns(now, leaseUntil, {
              runLength: WEBHOOK_RETRY.runLength,
              limit: WEBHOOK_RETRY.claimLimit,
              busy: [...busy],
              mine,
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
      if (dispatch) dispatchWanted = true;
      if (taken) await recordOneByOne(taken);
      throw error;
    }
    const done = taken as Taken | null;
    for (const success of done?.successes ?? []) results.push(resultOf(success));
    for (const result of results) deps.onResult(result);
    const byEndpoint = new Map<string, WebhookEventRecord[]>();
    for (const event of claimed) byEndpoint.set(event.endpointId, [...(byEndpoint.get(event.endpointId) ?? []), event]);
    for (const [endpointId, events] of byEndpoint) {
      // Its sender stopped short while this claim was under way: what follows the failure waits for it.
      if ((stops.get(endpointId) ?? 0) !== (stopsAtClaim.get(endpointId) ?? 0)) {
        releases.push(...events);
        kick();
      } else enqueue(endpointId, endpoints.get(endpointId), events, leaseUntil);
    }
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
    while (senders.size > 0 || current)
      await Promise.allSettled([...[...senders.values()].map((sender) => sender.done), current]);
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
        if (stats.dispatched + stats.recorded + stats.claimed === 0 && senders.size === 0 && queued() === 0) return;
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

function endpointOf(outcome: AttemptOutcome): string {
  return outcome.event.endpointId;
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
