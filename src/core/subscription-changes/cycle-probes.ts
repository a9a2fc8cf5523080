import { pendingUpdatesRepository, prorationEntriesRepository } from '../subscriptions/changes-repository.js';
import type { CycleHookProbe } from '../subscriptions/cycle-probes.js';

/** pendingUpdateCycleHook's probe: the subscriptions with a `next_period` change due by the boundary. */
export const pendingUpdateProbe: CycleHookProbe = async (db, subscriptions, at) => {
  const pending = await pendingUpdatesRepository(db).forSubscriptions(subscriptions.map((s) => s.id));
  return new Set([...pending].filter(([, update]) => update.appliesAt <= at).map(([id]) => id));
};

/** prorationCycleHook's probe: the subscriptions with proration entries not billed yet. */
export const prorationProbe: CycleHookProbe = (db, subscriptions) =>
  prorationEntriesRepository(db).withUnbilled(subscriptions.map((s) => s.id));

/** pauseCycleHook reads nothing (the row says whether it pauses): its probe is the row itself. */
export const pauseProbe: CycleHookProbe = async (_db, subscriptions) =>
  new Set(subscriptions.filter((s) => s.pauseAtPeriodEnd && s.status !== 'paused').map((s) => s.id));
