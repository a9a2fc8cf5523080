import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The request a piece of work belongs to, carried through async calls without threading it through every signature:
 * the daemon sets it for each HTTP request (X-Request-Id) and for each worker job a request caused; rows written for
 * later work (outbox events, scheduled jobs, mails) store it, and log lines include it.
 */
const storage = new AsyncLocalStorage<{ requestId: string }>();

export function currentRequestId(): string | null {
  return storage.getStore()?.requestId ?? null;
}

/** Runs `work` as part of the request `requestId`; null runs it outside any request. */
export function withRequestId<T>(requestId: string | null | undefined, work: () => T): T {
  return requestId ? storage.run({ requestId }, work) : storage.exit(work);
}

/** Longest request id accepted from a client or stored with a row. */
export const REQUEST_ID_MAX_LENGTH = 128;
