import type { Clock } from '../kernel/clock.js';
import { CoherentCache } from './coherent-cache.js';
import type { Db } from '../database/index.js';
import type { InvalidationBus } from './invalidation.js';

/**
 * The invalidation key, and the owner of every cached entry, for what an organization sells: its row and its catalog
 * (products, prices, what product wires embed). One key for all of them keeps every write path simple to get right:
 * these change rarely, and a dropped entry costs one read.
 */
export const merchantInvalidation = (organizationId: string) => `merchant:${organizationId}`;

/**
 * The key of an organization's access tokens, apart from its catalog: every API request reads a token, so a product
 * change should not cost the next request a read. Token changes and the organization's deletion announce it.
 */
export const accessInvalidation = (organizationId: string) => `access:${organizationId}`;

type OwnerKey = (organizationId: string) => string;

const PREFIXES = ['merchant:', 'access:'];

/** Whether a change announcing `key` changes what the read cache holds (see markChanging). */
export function isReadCacheKey(key: string): boolean {
  return PREFIXES.some((prefix) => key.startsWith(prefix));
}

/** Transactions that announced a change: they read the database, since a cache holds only what committed before. */
const changingTransactions = new WeakSet<object>();

export function markChanging(trx: Db): void {
  changingTransactions.add(trx);
}

/** Freezes a value that will be handed to many requests, so no caller can change what the next one reads. */
export function deepFreeze<V>(value: V): V {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value) || value instanceof Date) return value;
  if (value instanceof Map) {
    for (const item of value.values()) deepFreeze(item);
  } else {
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return Object.freeze(value);
}

/**
 * Rows every request reads and almost no request changes (the catalog behind a checkout, organizations, access
 * tokens), kept across requests by the daemon. Correct because every change announces `merchantInvalidation`
 * (cache/changing.ts), not because entries expire. Repositories that cache are handed it when they are made
 * (`productsRepository(db, readCache)`, `organizationsRepository(db, readCache)`), so a reader sees which reads may
 * be answered from it.
 *
 * - Used only while the bus is coherent (always on SQLite; on PostgreSQL while this daemon listens).
 * - Filled only outside transactions: a transaction may see its own uncommitted writes or, on PostgreSQL, an older
 *   snapshot, and neither may outlive it. Reads inside a transaction that announced a change bypass the cache.
 * - Values are frozen: they are shared by every request that reads them.
 */
export class ReadCache {
  private readonly cache: CoherentCache<unknown>;

  constructor(
    private readonly bus: InvalidationBus,
    private readonly clock: Clock,
    maxAgeMs: number,
    maxEntries?: number,
  ) {
    this.cache = new CoherentCache(maxAgeMs, maxEntries);
  }

  /** Whether `db` may read from this cache at all. */
  usable(db: Db): boolean {
    return this.bus.coherent && !(db.isTransaction && changingTransactions.has(db));
  }

  get<V>(db: Db, key: string): V | undefined {
    if (!this.usable(db)) return undefined;
    return (this.cache.get(key, this.clock.now().getTime()) ?? undefined) as V | undefined;
  }

  beginRead(): number {
    return this.cache.beginRead();
  }

  /**
   * Keeps what a read begun at `readEpoch` found, where allowed, owned by the organization's `ownerKey`; returns the
   * value as callers must use it.
   */
  keep<V>(
    db: Db,
    readEpoch: number,
    key: string,
    organizationId: string,
    value: V,
    ownerKey: OwnerKey = merchantInvalidation,
  ): V {
    if (!this.usable(db) || db.isTransaction) return value;
    const frozen = deepFreeze(value);
    this.cache.fill(readEpoch, key, ownerKey(organizationId), frozen, this.clock.now().getTime());
    return frozen;
  }

  /** The cached value of `key`, or what `load` finds (kept when found). */
  async read<V>(
    db: Db,
    key: string,
    load: () => Promise<{ value: V; organizationId: string } | null>,
    ownerKey: OwnerKey = merchantInvalidation,
  ): Promise<V | null> {
    const hit = this.get<V>(db, key);
    if (hit !== undefined) return hit;
    const readEpoch = this.beginRead();
    const found = await load();
    return found ? this.keep(db, readEpoch, key, found.organizationId, found.value, ownerKey) : null;
  }

  /** Applies an invalidation key announced by any daemon (this one included). */
  forgetKey(key: string): void {
    if (isReadCacheKey(key)) this.cache.forgetOwner(key);
  }

  clear(): void {
    this.cache.clear();
  }

  /** This cache if `db` may use it, else null (not coherent, or a transaction that changes cached rows). */
  for(db: Db): ReadCache | null {
    return this.usable(db) ? this : null;
  }

  get size(): number {
    return this.cache.size;
  }
}
