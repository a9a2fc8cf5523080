import pg from 'pg';
import type { Db } from '../database/index.js';
import { dialect } from '../database/index.js';

const CHANNEL = 'till_invalidate';

export interface InvalidationHandlers {
  /** A key another daemon (or this one) announced; dropped from in-memory caches. */
  onKey(key: string): void;
  /** Notifications may have been missed: forget every cached entry. */
  onReset(): void;
}

/**
 * Tells every daemon sharing a PostgreSQL database that cached state changed. `announce` runs pg_notify inside
 * the caller's transaction, so the message goes out exactly when (and only if) the change commits. On SQLite a
 * single daemon owns the file and there is nobody to tell.
 */
export class InvalidationBus {
  private client: pg.Client | null = null;
  private closed = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private retryDelayMs = 250;

  constructor(
    private readonly databaseUrl: string,
    private readonly handlers: InvalidationHandlers,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  /**
   * Whether in-memory caches may be used: always on SQLite (one daemon owns the file), and on PostgreSQL only
   * while this daemon is listening, since otherwise it could miss another daemon's changes.
   */
  get coherent(): boolean {
    return !this.isPostgres || this.client !== null;
  }

  private get isPostgres(): boolean {
    return /^postgres(ql)?:/.test(this.databaseUrl);
  }

  /**
   * Forgets keys in this daemon's own caches at once, through the same handler as notifications from others, so
   * every cache (sessions, API keys) hears of a change whichever service made it.
   */
  forgetHere(keys: string[]): void {
    for (const key of keys) this.handlers.onKey(key);
  }

  async announce(db: Db, keys: string[]): Promise<void> {
    if (keys.length === 0 || dialect(db) !== 'postgres') return;
    await db.raw(`select pg_notify('${CHANNEL}', key) from unnest(?::text[]) as key`, [keys]);
  }

  /** Starts listening (PostgreSQL only). Resolves once the first LISTEN is in place. */
  async start(): Promise<void> {
    if (!this.isPostgres) return;
    await this.connect();
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    client.on('notification', (message) => {
      if (message.channel === CHANNEL && message.payload) this.handlers.onKey(message.payload);
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, null));
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    this.client = client;
    this.retryDelayMs = 250;
  }

  private lost(client: pg.Client, error: unknown): void {
    if (this.client !== client) return;
    this.client = null;
    // Whatever was announced while nobody listened is unknown: start from an empty cache.
    this.handlers.onReset();
    if (this.closed) return;
    if (error) this.onError(error);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.connect().catch((error) => {
        this.handlers.onReset();
        this.onError(error);
        this.retryDelayMs = Math.min(this.retryDelayMs * 2, 10_000);
        this.scheduleReconnect();
      });
    }, this.retryDelayMs);
    this.retryTimer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }
}
