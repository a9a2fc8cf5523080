interface Entry<V> {
  value: V;
  owner: string;
  cachedAt: number;
}

/**
 * An in-memory cache that stays correct because it is told of every change, not because entries expire. Used for
 * sessions and API keys, the lookups behind every authenticated request.
 *
 * - Every change to a cached thing (or to its owner, a user) drops the affected entries after it commits; other
 *   daemons on the same database hear of it through the invalidation bus.
 * - A read already in flight when an invalidation happens must not put its possibly older answer back: `epoch`
 *   counts invalidations, and a fill is kept only if none happened since its read began.
 * - `maxAgeMs` bounds how long an entry can outlive a lost notification; `maxEntries` bounds memory, dropping the
 *   oldest entries first.
 */
export class CoherentCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly byOwner = new Map<string, Set<string>>();
  private epoch = 0;

  constructor(
    private readonly maxAgeMs: number,
    private readonly maxEntries = 100_000,
  ) {}

  /** Marks the start of a database read whose result may be cached with `fill`. */
  beginRead(): number {
    return this.epoch;
  }

  get(key: string, now: number): V | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    if (now - entry.cachedAt >= this.maxAgeMs || now < entry.cachedAt) {
      this.remove(key);
      return null;
    }
    return entry.value;
  }

  /** Caches what a read begun at `readEpoch` found, unless something was invalidated meanwhile. */
  fill(readEpoch: number, key: string, owner: string, value: V, now: number): void {
    if (readEpoch === this.epoch) this.put(key, owner, value, now);
  }

  /** Caches what this daemon itself just wrote. */
  put(key: string, owner: string, value: V, now: number): void {
    if (!this.entries.has(key) && this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.remove(oldest);
    }
    this.remove(key);
    this.entries.set(key, { value, owner, cachedAt: now });
    let keys = this.byOwner.get(owner);
    if (!keys) this.byOwner.set(owner, (keys = new Set()));
    keys.add(key);
  }

  forget(key: string): void {
    this.epoch += 1;
    this.remove(key);
  }

  forgetOwner(owner: string): void {
    this.epoch += 1;
    for (const key of this.byOwner.get(owner) ?? []) this.entries.delete(key);
    this.byOwner.delete(owner);
  }

  /** Drops everything: invalidations may have been missed (the bus lost its connection). */
  clear(): void {
    this.epoch += 1;
    this.entries.clear();
    this.byOwner.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    const keys = this.byOwner.get(entry.owner);
    keys?.delete(key);
    if (keys?.size === 0) this.byOwner.delete(entry.owner);
  }
}
