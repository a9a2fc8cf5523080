import type { User } from '../auth/repository.js';
import type { ApiKeyRecord } from './repository.js';

export interface CachedKey {
  key: ApiKeyRecord;
  user: User;
  cachedAt: number;
}

/**
 * Recently verified API keys by hash, so that a key check costs what a cached session check costs: a digest and a
 * map lookup, no database round trip. The same rules as the session cache (session-cache.ts): every change to a
 * key or its user drops the entry after it commits (other daemons hear of it through the invalidation bus); a read
 * that was in flight when an invalidation happened does not put its older answer back (`epoch`); and `maxAgeMs`
 * bounds how long an entry outlives a lost notification. Usage counters are not cached: they are never used to
 * decide from memory.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, CachedKey>();
  private readonly byUser = new Map<string, Set<string>>();
  private epoch = 0;

  constructor(
    private readonly maxAgeMs: number,
    private readonly maxEntries = 100_000,
  ) {}

  beginRead(): number {
    return this.epoch;
  }

  get(keyHash: string, now: number): CachedKey | null {
    const entry = this.entries.get(keyHash);
    if (!entry) return null;
    if (now - entry.cachedAt >= this.maxAgeMs || now < entry.cachedAt) {
      this.remove(keyHash);
      return null;
    }
    return entry;
  }

  fill(readEpoch: number, key: ApiKeyRecord, user: User, now: number): void {
    if (readEpoch !== this.epoch) return;
    if (!this.entries.has(key.keyHash) && this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.remove(oldest);
    }
    this.entries.delete(key.keyHash);
    this.entries.set(key.keyHash, { key, user, cachedAt: now });
    let hashes = this.byUser.get(user.id);
    if (!hashes) this.byUser.set(user.id, (hashes = new Set()));
    hashes.add(key.keyHash);
  }

  forgetKey(keyHash: string): void {
    this.epoch += 1;
    this.remove(keyHash);
  }

  forgetUser(userId: string): void {
    this.epoch += 1;
    for (const keyHash of this.byUser.get(userId) ?? []) this.entries.delete(keyHash);
    this.byUser.delete(userId);
  }

  clear(): void {
    this.epoch += 1;
    this.entries.clear();
    this.byUser.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  private remove(keyHash: string): void {
    const entry = this.entries.get(keyHash);
    if (!entry) return;
    this.entries.delete(keyHash);
    const hashes = this.byUser.get(entry.user.id);
    hashes?.delete(keyHash);
    if (hashes?.size === 0) this.byUser.delete(entry.user.id);
  }
}
