import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { ConfigError } from '../core/config/index.js';

/** What one client may hold of the daemon: header size, how long a request may take to arrive, open connections. */
export interface ServerLimits {
  /** Request line and headers together; more is answered 431 by Node. */
  maxHeaderBytes: number;
  /** Until the headers are complete. */
  headersTimeoutMs: number;
  /** Until the whole request, body included, has arrived (408 and closed after). */
  requestTimeoutMs: number;
  /** A connection with no traffic either way for this long is closed (event streams opt out). */
  idleTimeoutMs: number;
  /** Simultaneous connections from one client address; 0 turns the limit off. */
  maxConnectionsPerClient: number;
}

export const DEFAULT_LIMITS: ServerLimits = {
  maxHeaderBytes: 16 * 1024,
  headersTimeoutMs: 20_000,
  // Long enough for a 128 MiB file part on a slow link.
  requestTimeoutMs: 300_000,
  idleTimeoutMs: 60_000,
  // Far above what one browser (6 per host) or the benchmarks (tens) open, far below what exhausts the daemon.
  maxConnectionsPerClient: 256,
};

const ENV: Record<keyof ServerLimits, string> = {
  maxHeaderBytes: 'TILL_MAX_HEADER_BYTES',
  headersTimeoutMs: 'TILL_HEADERS_TIMEOUT_MS',
  requestTimeoutMs: 'TILL_REQUEST_TIMEOUT_MS',
  idleTimeoutMs: 'TILL_IDLE_TIMEOUT_MS',
  maxConnectionsPerClient: 'TILL_MAX_CONNECTIONS_PER_CLIENT',
};

/** The limits from the environment, over the defaults. A headers timeout is at most the request timeout. */
export function loadServerLimits(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<ServerLimits> = {},
): ServerLimits {
  const limits = { ...DEFAULT_LIMITS };
  for (const name of Object.keys(ENV) as Array<keyof ServerLimits>) {
    const raw = env[ENV[name]];
    if (raw === undefined || raw === '') continue;
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < 0) throw new ConfigError(`${ENV[name]} must be a whole number ≥ 0`);
    limits[name] = value;
  }
  Object.assign(limits, overrides);
  if (limits.maxHeaderBytes < 1024) throw new ConfigError('TILL_MAX_HEADER_BYTES must be at least 1024');
  if (
    limits.requestTimeoutMs > 0 &&
    (limits.headersTimeoutMs === 0 || limits.headersTimeoutMs > limits.requestTimeoutMs)
  )
    limits.headersTimeoutMs = limits.requestTimeoutMs;
  return limits;
}

/** Options for http.createServer: Node enforces these itself, without a timer per request. */
export function serverOptions(limits: ServerLimits) {
  const shortest = Math.min(...[limits.headersTimeoutMs, limits.requestTimeoutMs].filter((ms) => ms > 0));
  return {
    maxHeaderSize: limits.maxHeaderBytes,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    // How often Node looks for requests past their timeouts: often enough that a timeout is not overrun by much.
    connectionsCheckingInterval: Number.isFinite(shortest)
      ? Math.min(30_000, Math.max(25, Math.floor(shortest / 4)))
      : 30_000,
  };
}

/**
 * Refuses a client's connections beyond `max` open at once by closing them as they arrive. Counted per socket
 * address: behind a proxy every client shares the proxy's address, so the caller turns the limit off there and
 * leaves per-client limits to the proxy.
 */
export function limitConnectionsPerClient(server: Server, max: number): void {
  if (max <= 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}
