import { MINUTE } from '../kernel/clock.js';

type Write = (keyId: string, uses: number, lastRequest: Date) => Promise<void>;

/**
 * lastRequest and requestCount of keys without limits, counted in memory and written at most once a minute per
 * key (the first use right away), so a busy CI key costs no database write per request. Better Auth writes every
 * use, which is why teams turn its per-key accounting off. Counts still pending when the daemon stops are written
 * by `flushAll` at shutdown; a crash loses at most a minute of them, which only informs, never authorizes.
 */
export class UsageRecorder {
  private readonly pending = new Map<string, { uses: number; lastRequest: Date }>();
  private readonly writtenAt = new Map<string, number>();

  constructor(
    private readonly write: Write,
    private readonly intervalMs = MINUTE,
  ) {}

  /** Counts one use; writes it, with whatever else is pending for the key, when the key's last write is old enough. */
  async record(keyId: string, at: Date): Promise<void> {
    const entry = this.pending.get(keyId);
    if (entry) {
      entry.uses += 1;
      if (at > entry.lastRequest) entry.lastRequest = at;
    } else {
      this.pending.set(keyId, { uses: 1, lastRequest: at });
    }
    const last = this.writtenAt.get(keyId);
    const now = at.getTime();
    if (last !== undefined && now >= last && now - last < this.intervalMs) return;
    await this.flush(keyId, now);
  }

  /** Writes everything pending (the daemon's minute timer and shutdown) and forgets keys idle for a while. */
  async flushAll(now: number): Promise<void> {
    for (const keyId of [...this.pending.keys()]) await this.flush(keyId, now);
    for (const [keyId, at] of this.writtenAt)
      if (now - at >= this.intervalMs && !this.pending.has(keyId)) this.writtenAt.delete(keyId);
  }

  private async flush(keyId: string, now: number): Promise<void> {
    const entry = this.pending.get(keyId);
    if (!entry) return;
    // Taken out before the write, so uses arriving meanwhile start a new batch instead of being lost or doubled.
    this.pending.delete(keyId);
    this.writtenAt.set(keyId, now);
    try {
      await this.write(keyId, entry.uses, entry.lastRequest);
    } catch {
      // Kept for the next attempt: bookkeeping must never fail the request that happened to carry it.
      const again = this.pending.get(keyId);
      if (again) {
        again.uses += entry.uses;
        if (entry.lastRequest > again.lastRequest) again.lastRequest = entry.lastRequest;
      } else {
        this.pending.set(keyId, entry);
      }
    }
  }
}
