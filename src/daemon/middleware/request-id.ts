import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import { REQUEST_ID_MAX_LENGTH, withRequestId } from '../../core/kernel/request-context.js';

/**
 * A client's X-Request-Id when it is a plain token (letters, digits, `-_.:/+=@`, at most 128 characters): anything
 * else could forge log lines or smuggle markup into a log viewer, so it is replaced rather than cleaned up.
 */
const ACCEPTED = new RegExp(`^[A-Za-z0-9._:/+=@-]{1,${REQUEST_ID_MAX_LENGTH}}$`);

export function requestIdOf(header: string): string {
  return ACCEPTED.test(header) ? header : randomUUID();
}

/**
 * Takes the request id from X-Request-Id or makes one, answers it in X-Request-Id, and runs the rest of the request
 * under it: every log line of the request carries it, and rows the request writes for the workers (outbox events,
 * scheduled jobs, mails) store it.
 */
export function requestId() {
  return async (ctx: Context, next: Next) => {
    const id = requestIdOf(ctx.get('x-request-id'));
    ctx.state.requestId = id;
    ctx.set('X-Request-Id', id);
    await withRequestId(id, next);
  };
}
