import type { Session, User } from './repository.js';

interface Entry {
  session: Session;
  user: User;
  cachedAt: number;
}

/**
 * Recently resolved sessions, so that get-session does not cost a database round trip each time.
 *
 * Correctness rests on invalidation, not on expiry: every change to a session or its user drops the affected
 * entries here after it commits, and other daemons sharing the database hear of it through the invalidation bus.
 * A read that was already in flight when an invalidation happened must not put its (possibly older) answer back:
 * `epoch` counts invalidations, and a fill is only kept when no invalidation happened since its read began.
 * `maxAgeMs` bounds how long an entry can outlive a lost notification.
 */
export class SessionCache {
  private readonly entries = new Map<string, Entry>();
  private readonly byUser = new Map<string, Set<string>>();
  private epoch = 0;

  constructor(
    private readonly maxAgeMs: number,
    private readonly maxEntries = 100_000,
  ) {}

  /** Marks the start of a database read whose result may be cached with `fill`. */
  beginRead(): number {
    return this.epoch;
  }

  get(tokenHash: string, now: number): Entry | null {
    const entry = this.entries.get(tokenHash);
    if (!entry) return null;
    if (now - entry.cachedAt >= this.maxAgeMs || now < entry.cachedAt) {
      this.remove(tokenHash);
      return null;
    }
    return entry;
  }

  fill(readEpoch: number, tokenHash: string, session: Session, user: User, now: number): void {
    if (readEpoch !== this.epoch) return;
    this.set(tokenHash, { session, user, cachedAt: now });
  }

  /** Replaces an entry with what this daemon itself just wrote (a refresh). */
  replace(tokenHash: string, session: Session, user: User, now: number): void {
    this.set(tokenHash, { session, user, cachedAt: now });
  }

  forgetSession(tokenHash: string): void {
    this.epoch += 1;
    this.remove(tokenHash);
  }

  forgetUser(userId: string): void {
    this.epoch += 1;
    for (const tokenHash of this.byUser.get(userId) ?? []) this.entries.delete(tokenHash);
    this.byUser.delete(userId);
  }

  /** Drops everything: used when invalidations may have been missed (the listener lost its connection). */
  clear(): void {
    this.epoch += 1;
    this.entries.clear();
    this.byUser.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  private set(tokenHash: string, entry: Entry): void {
    if (!this.entries.has(tokenHash) && this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.remove(oldest);
    }
    this.entries.delete(tokenHash);
    this.entries.set(tokenHash, entry);
    let tokens = this.byUser.get(entry.user.id);
    if (!tokens) this.byUser.set(entry.user.id, (tokens = new Set()));
    tokens.add(tokenHash);
  }

  private remove(tokenHash: string): void {
    const entry = this.entries.get(tokenHash);
    if (!entry) return;
    this.entries.delete(tokenHash);
    const tokens = this.byUser.get(entry.user.id);
    tokens?.delete(tokenHash);
    if (tokens?.size === 0) this.byUser.delete(entry.user.id);
  }
}
