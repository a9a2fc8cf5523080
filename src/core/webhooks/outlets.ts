import type { Clock } from '../kernel/clock.js';
import type { WebhooksConfig } from '../config/index.js';
import type { AttemptOutcome, createDeliverer } from './delivery.js';
import type { EndpointRecord } from './endpoints-repository.js';
import type { WebhookEventRecord } from './events-repository.js';
import { DEFAULT_MAX_CONCURRENCY } from './ordering.js';

/** A claimed event waiting to be sent, with the endpoint as its claim read it and that claim's lease. */
interface Item {
  event: WebhookEventRecord;
  endpoint: EndpointRecord | undefined;
  leaseUntil: Date;
}

/** One ordering key's events of one endpoint, sent one after another; an event without a key has a lane of its own. */
interface Lane {
  id: string;
  queue: Item[];
  sending: WebhookEventRecord | null;
}

/** One endpoint's lanes: at most `limit` of them send at once, the others wait their turn in `waiting`. */
interface Outlet {
  limit: number;
  lanes: Map<string, Lane>;
  waiting: Lane[];
  active: number;
  /** Events queued in its lanes, not counting those being sent. */
  queued: number;
}

/** The lane an event goes out in: its endpoint and its ordering key (or, without one, the event itself). */
export function laneOf(event: WebhookEventRecord): string {
  return `${event.endpointId}\u0000${event.orderingKey ?? `#${event.id}`}`;
}

/**
 * The sending side of one daemon's delivery pipeline. Claimed events are queued in lanes, one per endpoint and ordering
 * key; each lane sends its events in claim order (which is their commit order) and stops at the first failure,
 * giving back what it has not sent, so an event of a customer never overtakes an earlier one. Lanes of one endpoint
 * run side by side up to the endpoint's `max_concurrency`. Nothing here touches the database: outcomes and give-backs
 * go to the callbacks, for the pump's next round to write.
 */
export function createOutlets(deps: {
  clock: Clock;
  config: WebhooksConfig;
  deliverer: ReturnType<typeof createDeliverer>;
  closed: () => boolean;
  lowWater: number;
  onSuccess: (outcome: AttemptOutcome) => void;
  onFailure: (outcome: AttemptOutcome) => void;
  /** Claimed events given back unsent (their attempt not counted), in their lane's order. */
  onRelease: (events: WebhookEventRecord[]) => void;
  /** A lane stopped before its queue was empty (a failure, a lease about to lapse, closing, an error). */
  onStopped: (laneId: string) => void;
  /** An endpoint's queue ran low, or a lane ended: more may be claimed (`broken`: it ended on an error). */
  onRoom: (broken: boolean) => void;
  onError: (error: unknown) => void;
}) {
  const { clock, config, deliverer } = deps;
  const outlets = new Map<string, Outlet>();
  const running = new Set<Promise<void>>();
  // Each claim brings the endpoint as it was then; its secrets are opened once per claim, not per event.
  const secretsByClaim = new WeakMap<EndpointRecord, string[]>();

  function secretsOf(endpoint: EndpointRecord | undefined): string[] | null {
    if (!endpoint) return null;
    let secrets = secretsByClaim.get(endpoint);
    if (!secrets) {
      secrets = deliverer.secretsFor(endpoint);
      secretsByClaim.set(endpoint, secrets);
    }
    return secrets;
  }

  function start(endpointId: string, outlet: Outlet, lane: Lane): void {
    outlet.active++;
    const done = run(endpointId, outlet, lane);
    running.add(done);
    void done.finally(() => running.delete(done));
  }

  function startWaiting(endpointId: string, outlet: Outlet): void {
    while (outlet.active < outlet.limit && outlet.waiting.length > 0)
      start(endpointId, outlet, outlet.waiting.shift()!);
  }

  async function run(endpointId: string, outlet: Outlet, lane: Lane): Promise<void> {
    let short = false;
    let broken = false;
    try {
      while (lane.queue.length > 0) {
        const { event, endpoint, leaseUntil } = lane.queue[0]!;
        // No attempt that could outlast the claim's lease: past it another daemon may take the event.
        if (deps.closed() || clock.now().getTime() + config.timeoutMs > leaseUntil.getTime()) {
          short = true;
          break;
        }
        const secrets = secretsOf(endpoint);
        lane.queue.shift();
        outlet.queued--;
        lane.sending = event;
        const outcome = await deliverer.send(event, endpoint, secrets);
        lane.sending = null;
        if (!outcome.succeeded) {
          deps.onFailure(outcome);
          short = true;
          break;
        }
        deps.onSuccess(outcome);
        // Claim more before the endpoint's queues run dry, so a backlog does not wait a round for each claim.
        if (outlet.queued === deps.lowWater) deps.onRoom(false);
      }
    } catch (error) {
      broken = true;
      short = true;
      deps.onError(error);
    }
    // From here on synchronous, so no claim can join the lane after it was given back. What was not sent waits again
    // behind the event before it (released in the same transaction that records that event's outcome).
    const rest = [...(lane.sending ? [lane.sending] : []), ...lane.queue.map((item) => item.event)];
    outlet.queued -= lane.queue.length;
    lane.queue = [];
    if (rest.length > 0) deps.onRelease(rest);
    outlet.lanes.delete(lane.id);
    outlet.active--;
    if (short) deps.onStopped(lane.id);
    startWaiting(endpointId, outlet);
    if (outlet.lanes.size === 0) outlets.delete(endpointId);
    // A lane that broke (its endpoint's secret cannot be opened, say) is retried by the poll, not at once.
    deps.onRoom(broken);
  }

  return {
    /**
     * Queues claimed events (in seq order) behind what their lanes still have to send, and starts lanes while the
     * endpoint has room. A lane is claimed again while it is busy (see claimHeads' `mine`), so a busy customer's
     * events follow one another without waiting a round.
     */
    enqueue(endpointId: string, endpoint: EndpointRecord | undefined, events: WebhookEventRecord[], leaseUntil: Date) {
      let outlet = outlets.get(endpointId);
      if (!outlet) {
        outlet = { limit: DEFAULT_MAX_CONCURRENCY, lanes: new Map(), waiting: [], active: 0, queued: 0 };
        outlets.set(endpointId, outlet);
      }
      // The endpoint as this claim read it: a changed limit applies from here on.
      outlet.limit = endpoint?.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY;
      for (const event of events) {
        const id = laneOf(event);
        let lane = outlet.lanes.get(id);
        if (!lane) {
          lane = { id, queue: [], sending: null };
          outlet.lanes.set(id, lane);
          outlet.waiting.push(lane);
        }
        lane.queue.push({ event, endpoint, leaseUntil });
        outlet.queued++;
      }
      startWaiting(endpointId, outlet);
    },

    /** Ids of the claimed events this process still has to send or is sending. */
    held(): string[] {
      const ids: string[] = [];
      for (const outlet of outlets.values())
        for (const lane of outlet.lanes.values()) {
          if (lane.sending) ids.push(lane.sending.id);
          for (const item of lane.queue) ids.push(item.event.id);
        }
      return ids;
    },

    /** Endpoints with at least `count` events queued here: a claim leaves them out until their lanes catch up. */
    fullerThan(count: number): string[] {
      return [...outlets].filter(([, outlet]) => outlet.queued >= count).map(([endpointId]) => endpointId);
    },

    get size(): number {
      return outlets.size;
    },

    /** Resolves once no lane is running (lanes started meanwhile included). */
    async idle(): Promise<void> {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}
