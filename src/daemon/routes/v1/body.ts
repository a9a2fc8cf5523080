import type { Context } from 'koa';
import { validationError } from '../../../core/polar-api/errors.js';
import { DomainError } from '../../../core/kernel/errors.js';
import { readBody } from '../../middleware/body.js';
import { MAX_JSON_DEPTH } from '../../middleware/json-depth.js';

/**
 * Reads a /v1 JSON body. Malformed JSON is FastAPI's 422 `json_invalid`; a missing body is parsed as `undefined`
 * so the schema reports the missing fields. The parsed value is kept for the idempotency fingerprint.
 */
export async function readV1Body(ctx: Context, maxBytes: number): Promise<unknown> {
  let body: unknown;
  try {
    body = await readBody(ctx, { maxBytes });
  } catch (error) {
    if (error instanceof DomainError && error.code === 'BAD_REQUEST') {
      throw validationError([{ loc: ['body', 0], msg: 'JSON decode error', type: 'json_invalid' }]);
    }
    if (error instanceof DomainError && error.code === 'JSON_TOO_DEEP') {
      throw validationError([
        { loc: ['body', 0], msg: `JSON nested deeper than ${MAX_JSON_DEPTH} levels`, type: 'json_invalid' },
      ]);
    }
    if (error instanceof DomainError && error.status === 413)
      throw new DomainError(413, 'PayloadTooLarge', error.message);
    if (error instanceof DomainError && error.status === 415)
      throw new DomainError(415, 'UnsupportedMediaType', error.message);
    throw error;
  }
  ctx.request.rawBodyForIdempotency = body ?? null;
  return body;
}
