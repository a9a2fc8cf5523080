import type { Clock } from '../kernel/clock.js';
import { HOUR } from '../kernel/clock.js';
import type { Db } from '../database/index.js';
import { isUniqueViolation } from '../database/index.js';
import { SecretBoxError, type SecretBox } from '../kernel/secret-box.js';

/** Stripe's window: a key is remembered for 24 hours. */
export const IDEMPOTENCY_TTL_MS = 24 * HOUR;

export type IdempotencyClaim =
  | { kind: 'fresh' }
  | { kind: 'replay'; status: number; body: unknown }
  | { kind: 'mismatch' }
  | { kind: 'in_progress' }
  | { kind: 'unreadable' };

/**
 * The stored answer is sealed with the secret box, bound to its caller and key: it holds whatever the request
 * created (an access token, a customer session token, a webhook secret), which must be replayable but is otherwise
 * never kept in plain text. Migration 20261122000000_secrets_at_rest writes the same context.
 */
function answerContext(principal: string, key: string): string {
  return `idempotency_keys:${JSON.stringify([principal, key])}`;
}

/**
 * Idempotency keys (Stripe's semantics): the first request with a key claims it by inserting a row; the unique key
 * makes concurrent duplicates lose that race. The answer is stored when the request finishes, and a later request
 * with the same key and the same body gets it back unchanged.
 */
export function idempotencyStore(db: Db, clock: Clock, box: SecretBox) {
  return {
    async claim(
      principal: string,
      key: string,
      request: { method: string; path: string; hash: string },
    ): Promise<IdempotencyClaim> {
      const now = clock.now();
      await db('idempotency_keys').where({ principal, key }).where('expires_at', '<=', now).delete();
      try {
        await db('idempotency_keys').insert({
          principal,
          key,
          method: request.method,
          path: request.path,
          request_hash: request.hash,
          response_status: null,
          response_body: null,
          created_at: now,
          expires_at: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
        });
        return { kind: 'fresh' };
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
      const row = await db('idempotency_keys').where({ principal, key }).first();
      // Deleted between our insert and this read (the first request failed and released it): treat as in flight.
      if (!row) return { kind: 'in_progress' };
      if (row.method !== request.method || row.path !== request.path || row.request_hash !== request.hash)
        return { kind: 'mismatch' };
      if (row.response_status === null || row.response_status === undefined) return { kind: 'in_progress' };
      let body: unknown = null;
      if (row.response_body !== null) {
        try {
          body = JSON.parse(box.open(String(row.response_body), answerContext(principal, key)));
        } catch (error) {
          // Sealed under an earlier TILL_SECRET: the answer is gone, and running the request again could repeat it.
          if (error instanceof SecretBoxError) return { kind: 'unreadable' };
          throw error;
        }
      }
      return { kind: 'replay', status: Number(row.response_status), body };
    },
    async complete(principal: string, key: string, status: number, body: unknown): Promise<void> {
      await db('idempotency_keys')
        .where({ principal, key })
        .update({
          response_status: status,
          response_body:
            body === undefined || body === null ? null : box.seal(JSON.stringify(body), answerContext(principal, key)),
        });
    },
    /** Forgets a claim whose request should not count (a validation error, a crash), so the key can be used again. */
    async release(principal: string, key: string): Promise<void> {
      await db('idempotency_keys').where({ principal, key }).whereNull('response_status').delete();
    },
    async sweep(): Promise<number> {
      return db('idempotency_keys').where('expires_at', '<=', clock.now()).delete();
    },
  };
}

export type IdempotencyStore = ReturnType<typeof idempotencyStore>;
