import { lookup as dnsLookup } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import { storableText } from '../kernel/text.js';
import { MAX_CONCURRENCY_LIMIT } from './ordering.js';
import { isPrivateAddress } from './url-guard.js';

export const RESPONSE_CHARS = 2048;
const RESPONSE_READ_BYTES = 16 * 1024;

/** What one POST to an endpoint came to: its status (null when none came) and the start of its answer. */
export interface PostAnswer {
  httpCode: number | null;
  response: string;
  retryAfter?: string;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | Array<{ address: string; family: number }>,
  family?: number,
) => void;

/** Refuses connections to private addresses whatever the name resolved to when the endpoint was saved. */
function guardedLookup(hostname: string, options: object, callback: LookupCallback): void {
  dnsLookup(
    hostname,
    options as never,
    ((
      error: NodeJS.ErrnoException | null,
      address: string | Array<{ address: string; family: number }>,
      family?: number,
    ) => {
      if (error) return callback(error, address, family);
      const addresses = Array.isArray(address) ? address.map((entry) => entry.address) : [address];
      if (addresses.some(isPrivateAddress))
        return callback(
          Object.assign(new Error(`${hostname} resolves to a private address`), { code: 'EPRIVATE' }),
          address,
          family,
        );
      callback(null, address, family);
    }) as never,
  );
}

interface Target {
  origin: string;
  path: string;
  privateAddress: boolean;
}

/**
 * The daemon's HTTP sender for deliveries. One pool of keep-alive connections per daemon: most deliveries go to the
 * same few receivers. Per receiver origin as many connections as one endpoint may have deliveries in flight; they are
 * opened only as they are needed.
 *
 * Each POST goes through undici's `dispatch` with a handler of callbacks, not `request`: no response stream, no
 * AbortController and no async iteration per delivery, which were a good part of the main thread's time per delivery
 * (bench/webhooks/README.md). The answer is read up to 16 KiB; past that the connection is dropped rather than read on.
 */
export function createPoster(options: { timeoutMs: number; allowPrivateUrls: boolean }) {
  const { timeoutMs, allowPrivateUrls } = options;
  const agent = new Agent({
    keepAliveTimeout: 30_000,
    connections: MAX_CONCURRENCY_LIMIT,
    ...(allowPrivateUrls ? {} : { connect: { lookup: guardedLookup } }),
  });
  // Endpoint URLs are few and each is posted to many times: parsed once.
  const targets = new Map<string, Target>();
  const targetOf = (url: string): Target => {
    let target = targets.get(url);
    if (!target) {
      const parsed = new URL(url);
      const host = parsed.hostname.replace(/^\[|\]$/g, '');
      target = {
        origin: parsed.origin,
        path: `${parsed.pathname}${parsed.search}`,
        privateAddress: isIP(host) !== 0 && isPrivateAddress(host),
      };
      if (targets.size >= 1024) targets.clear();
      targets.set(url, target);
    }
    return target;
  };

  function post(url: string, body: string, headers: Record<string, string>): Promise<PostAnswer> {
    const target = targetOf(url);
    if (!allowPrivateUrls && target.privateAddress)
      return Promise.resolve({ httpCode: null, response: 'refused: the endpoint is a private address' });
    return new Promise<PostAnswer>((resolve) => {
      let settled = false;
      let timedOut = false;
      let abort: ((reason?: Error) => void) | null = null;
      let httpCode: number | null = null;
      let retryAfter: string | undefined;
      const chunks: Buffer[] = [];
      let size = 0;
      let enough = false;
      const finish = (answer: PostAnswer) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(answer);
      };
      // The receiver's text is kept as the log's `response`: NUL and a pair cut at the limit would stop PostgreSQL
      // from recording the attempt at all, and the endpoint would be re-sent the same events for good.
      const answered = () => ({
        httpCode,
        response: storableText(Buffer.concat(chunks).toString('utf8'), RESPONSE_CHARS),
        ...(retryAfter === undefined ? {} : { retryAfter }),
      });
      const timer = setTimeout(() => {
        timedOut = true;
        if (abort) abort(new Error('timed out'));
        finish({ httpCode: null, response: `timed out after ${timeoutMs} ms` });
      }, timeoutMs);
      const handler: Dispatcher.DispatchHandler = {
        onConnect(abortRequest) {
          abort = abortRequest;
          if (timedOut) abortRequest(new Error('timed out'));
        },
        onHeaders(statusCode, rawHeaders) {
          httpCode = statusCode;
          for (let i = 0; i < rawHeaders.length; i += 2)
            if (rawHeaders[i]!.length === 11 && rawHeaders[i]!.toString('latin1').toLowerCase() === 'retry-after')
              retryAfter = rawHeaders[i + 1]!.toString('latin1');
          return true;
        },
        onData(chunk) {
          if (enough) return true;
          chunks.push(chunk);
          size += chunk.length;
          if (size >= RESPONSE_READ_BYTES) {
            // More than we keep: drop the rest (and with it this connection) instead of reading a large answer.
            enough = true;
            finish(answered());
            abort?.(new Error('answer too long'));
          }
          return true;
        },
        onComplete() {
          finish(answered());
        },
        onError(error) {
          if (timedOut || enough) return;
          const e = error as { message?: string; code?: string; cause?: { message?: string; code?: string } };
          finish({
            httpCode: null,
            response: storableText(e.cause?.message || e.message || e.code || String(error), RESPONSE_CHARS),
          });
        },
      };
      agent.dispatch(
        {
          origin: target.origin,
          path: target.path,
          method: 'POST',
          headers,
          body,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        },
        handler,
      );
    });
  }

  return {
    post,
    close: () => agent.close(),
  };
}
