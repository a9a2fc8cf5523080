import type { Context, Next } from 'koa';
import { randomUUID } from 'node:crypto';
import { isDomainError, NotFoundError } from '../../core/kernel/errors.js';
import type { Logger } from '../logger.js';

/**
 * Renders every error in the wire shape of the API it happened under: Better Auth's `{message, code}` for
 * /api/auth and the admin API, Polar's `{error, detail}` for /v1. Anything that is not a DomainError is a 500 carrying an error id that is also
 * logged; no stack trace or internal message leaves the process.
 */
export function errorMiddleware(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } catch (error) {
      // Case-insensitive, as the routers match: `/V1/…` reaches the /v1 routes.
      if (/^\/v1(\/|$)/i.test(ctx.path)) {
        renderV1Error(ctx, error, logger);
        return;
      }
      if (error instanceof NotFoundError) {
        // Body first: Koa turns a null body into 204 unless the status is set after it.
        ctx.body = null;
        ctx.status = 404;
        return;
      }
      if (isDomainError(error)) {
        ctx.status = error.status;
        for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
        ctx.body = error.code === undefined ? { message: error.message } : { message: error.message, code: error.code };
        return;
      }
      const errorId = logUnhandled(ctx, error, logger);
      ctx.status = 500;
      ctx.body = { message: 'Internal Server Error', code: 'INTERNAL_SERVER_ERROR', errorId };
    }
  };
}

/** Polar's shape: `{error: <exception class name>, detail}`; a 422 carries FastAPI's list of field issues. */
function renderV1Error(ctx: Context, error: unknown, logger: Logger): void {
  if (error instanceof NotFoundError) {
    ctx.status = 404;
    ctx.body = { error: 'ResourceNotFound', detail: 'Not found' };
    return;
  }
  if (isDomainError(error)) {
    ctx.status = error.status;
    for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
    ctx.body = {
      error: error.code ?? 'HTTPException',
      detail: error.status === 422 && Array.isArray(error.details) ? error.details : error.message,
    };
    return;
  }
  const errorId = logUnhandled(ctx, error, logger);
  ctx.status = 500;
  ctx.body = { error: 'InternalServerError', detail: `Internal Server Error (error id ${errorId})` };
}

/** Logs an error no handler knew, under a fresh id the response can name. */
function logUnhandled(ctx: Context, error: unknown, logger: Logger): string {
  const errorId = randomUUID();
  logger.error('unhandled error', {
    errorId,
    method: ctx.method,
    path: ctx.path,
    error: error instanceof Error ? error.stack : String(error),
  });
  return errorId;
}
