import { request } from 'undici';
import { ApiError, CliError, EXIT, NotSignedInError, UnreachableError } from './errors.js';
import { notFoundMessage } from './not-found.js';
import type { Target } from './target.js';

/**
 * How a request proves who is asking: a user session, the operator's admin token, a customer portal session token
 * (for the portal routes a merchant reaches through a customer session), or nothing (sign-in).
 */
export type Auth =
  { kind: 'session' } | { kind: 'admin'; token: string } | { kind: 'customer'; token: string } | { kind: 'none' };

export interface CallOptions {
  body?: unknown;
  auth?: Auth;
  /** Seconds to wait for the answer's headers; bcrypt on a busy daemon is the slowest thing here. */
  timeoutSeconds?: number;
}

const USER_AGENT = `till-cli (node ${process.version})`;
/** 401s about an API key in TILL_TOKEN, which say what is wrong themselves and which `till login` would not fix. */
const API_KEY_REFUSALS = new Set([
  'INVALID_API_KEY',
  'KEY_DISABLED',
  'KEY_EXPIRED',
  'INVALID_REFERENCE_ID_FROM_API_KEY',
]);

/** Undici reports "connection refused" on a dual-stack host as an AggregateError whose own message is empty. */
function describeNetworkError(error: unknown): string {
  const e = error as {
    message?: string;
    code?: string;
    errors?: Array<{ message?: string }>;
    cause?: { message?: string; code?: string };
  };
  const nested = e.errors
    ?.map((inner) => inner.message)
    .filter(Boolean)
    .join('; ');
  return e.message || nested || e.cause?.message || e.code || String(error);
}

export function bearer(target: Target): string {
  if (!target.token) throw new NotSignedInError(undefined, target.url);
  return target.token;
}

/** Why the daemon at url cannot be reached, or null when something answers there (whatever it answers). */
export async function unreachable(url: string): Promise<string | null> {
  try {
    const response = await request(`${url}/api/auth/ok`, { headersTimeout: 5_000, bodyTimeout: 5_000 });
    await response.body.dump();
    return null;
  } catch (error) {
    return describeNetworkError(error);
  }
}

/**
 * One JSON request to the daemon. A 401 on an authenticated request means "sign in (again)" and exits 4; any
 * other error answer exits 1 with the server's message and code. `null` (Better Auth's "no session") is returned
 * as null for the caller to interpret.
 */
export async function call<T>(
  target: Target,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  options: CallOptions = {},
): Promise<T> {
  const auth = options.auth ?? { kind: 'session' };
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': USER_AGENT };
  if (auth.kind === 'session') headers.authorization = `Bearer ${bearer(target)}`;
  if (auth.kind === 'admin' || auth.kind === 'customer') headers.authorization = `Bearer ${auth.token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const timeout = (options.timeoutSeconds ?? 60) * 1000;
  let response: Awaited<ReturnType<typeof request>>;
  try {
    response = await request(`${target.url}${path}`, {
      method,
      headers,
      body,
      headersTimeout: timeout,
      bodyTimeout: timeout,
    });
  } catch (error) {
    throw new UnreachableError(target.url, describeNetworkError(error));
  }
  const text = await response.body.text();
  let json: unknown = undefined;
  if (text) {
    try {
      json = JSON.parse(text);
    } catch {
      // Not JSON: a proxy's error page or something that is not Till; reported below.
    }
  }
  if (response.statusCode >= 400) {
    const error = (json ?? {}) as { message?: unknown; code?: unknown; error?: unknown; detail?: unknown };
    const message =
      typeof error.message === 'string' && error.message
        ? error.message
        : (v1Detail(error.detail) ?? `${method} ${path} answered HTTP ${response.statusCode}`);
    const code =
      typeof error.code === 'string' ? error.code : typeof error.error === 'string' ? error.error : undefined;
    if (response.statusCode === 401 && auth.kind === 'session') {
      const explained =
        code && API_KEY_REFUSALS.has(code)
          ? message
          : `${message}: the session has expired or was revoked; run \`till login\``;
      throw new ApiError(401, code, explained, EXIT.notSignedIn, error.detail);
    }
    if (response.statusCode === 401 && auth.kind === 'admin') {
      throw new ApiError(
        401,
        code,
        `${message}: the daemon refused the admin token (see \`till admin token --help\`)`,
        EXIT.notSignedIn,
        error.detail,
      );
    }
    const missing = response.statusCode === 404 && message === 'Not found' ? notFoundMessage(path) : undefined;
    throw new ApiError(response.statusCode, code, missing ?? message, EXIT.failure, error.detail);
  }
  // /v1 deletions answer 204 without a body.
  if (json === undefined && response.statusCode === 204) return null as T;
  if (json === undefined)
    throw new CliError(
      `unexpected answer from ${target.url}${path} (HTTP ${response.statusCode}, not JSON); is this a Till daemon?`,
    );
  return json as T;
}

/** The message in a /v1 (Polar) error: `detail` is a string, or FastAPI's list of `{loc, msg}` for a 422. */
function v1Detail(detail: unknown): string | undefined {
  if (typeof detail === 'string' && detail) return detail;
  if (!Array.isArray(detail)) return undefined;
  const issues = detail.map((issue: { loc?: unknown[]; msg?: unknown }) => {
    const where = Array.isArray(issue.loc)
      ? issue.loc.filter((part) => part !== 'body' && part !== 'query').join('.')
      : '';
    return where ? `${where}: ${String(issue.msg)}` : String(issue.msg);
  });
  return issues.length > 0 ? issues.join('; ') : undefined;
}
