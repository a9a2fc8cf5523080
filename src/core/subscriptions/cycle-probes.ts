import type { Db } from '../database/index.js';
import type { CycleHook } from './cycle-hooks.js';
import type { Subscription } from './repository.js';

/**
 * For a batch of renewals (renewals/cycle-batch.ts): which of many subscriptions a cycle hook has work for, answered
 * in one query. The batch runs the hook only on those; a hook without a probe runs on every subscription, as the
 * single cycle runs it. A probe must never leave out a subscription its hook would change or add items to.
 */
export type CycleHookProbe = (db: Db, subscriptions: readonly Subscription[], at: Date) => Promise<Set<string>>;

/** The probes of the hooks that have one, by hook. */
export type CycleHookProbes = ReadonlyMap<CycleHook, CycleHookProbe>;
