import type { Context } from 'koa';
import { DomainError } from '../../core/kernel/errors.js';
import { wellFormedJson } from '../../core/kernel/text.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';

const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json$/i;

/**
 * Reads a request body. JSON everywhere; form-encoded only where Better Auth accepts it (the e-mail sign-in and
 * sign-up routes, so plain HTML forms work). A body over the limit is refused before it is buffered whole, and
 * JSON nested deeper than MAX_JSON_DEPTH before it is parsed. Every string and key of the result is well-formed
 * (lone surrogates become U+FFFD), the one rule for every field on both databases, metadata included.
 */
export async function readBody(ctx: Context, options: { maxBytes: number; allowForm?: boolean }): Promise<unknown> {
  const declaredLength = Number(ctx.get('content-length') || '0');
  const hasBody = declaredLength > 0 || Boolean(ctx.get('transfer-encoding'));
  if (!hasBody) return undefined;
  const allowed = options.allowForm ? ['application/json', 'application/x-www-form-urlencoded'] : ['application/json'];
  const contentType = ctx.get('content-type');
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  const isJson = JSON_TYPE.test(mediaType);
  const isForm = options.allowForm === true && mediaType === 'application/x-www-form-urlencoded';
  if (!isJson && !isForm) {
    throw new DomainError(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      mediaType
        ? `Content-Type "${contentType}" is not allowed. Allowed types: ${allowed.join(', ')}`
        : `Content-Type is required. Allowed types: ${allowed.join(', ')}`,
    );
  }
  if (declaredLength > options.maxBytes) throw payloadTooLarge(options.maxBytes);
  const text = await readText(ctx, options.maxBytes);
  // URLSearchParams decodes invalid percent-encoded UTF-8 to U+FFFD already.
  if (isForm) return Object.fromEntries(new URLSearchParams(text));
  if (text.trim() === '') return undefined;
  if (nestsDeeperThan(text, MAX_JSON_DEPTH))
    throw new DomainError(400, 'JSON_TOO_DEEP', `JSON in request body is nested deeper than ${MAX_JSON_DEPTH} levels`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new DomainError(400, 'BAD_REQUEST', 'Invalid JSON in request body');
  }
  // Text decoded from UTF-8 holds no lone surrogate (invalid bytes become U+FFFD): only a `\uD800`–`\uDFFF` escape
  // can make one. Without such an escape the parse is already well-formed, and large bodies (event batches) are not
  // copied again.
  return SURROGATE_ESCAPE.test(text) ? wellFormedJson(parsed) : parsed;
}

/** A JSON escape of a surrogate code unit (or text that merely looks like one, which only costs the walk). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

function payloadTooLarge(maxBytes: number): DomainError {
  return new DomainError(413, 'PAYLOAD_TOO_LARGE', `Request body is larger than ${maxBytes} bytes`);
}

async function readText(ctx: Context, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > maxBytes) {
      // Stop reading; the connection is closed after the answer so the rest of the upload is not waited for.
      ctx.set('Connection', 'close');
      throw payloadTooLarge(maxBytes);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
