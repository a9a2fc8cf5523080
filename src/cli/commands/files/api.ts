import { request } from 'undici';
import { bearer, type Target } from '../../context.js';
import { ApiError, CliError, EXIT, UnreachableError } from '../../errors.js';
import { notFoundMessage } from '../../not-found.js';

/** Polar's error body: `detail` is a message, or FastAPI's list of field issues on a 422. */
function describeV1Error(status: number, json: unknown): { code: string | undefined; message: string } {
  const body = (json ?? {}) as { error?: unknown; detail?: unknown };
  const code = typeof body.error === 'string' ? body.error : undefined;
  if (Array.isArray(body.detail)) {
    const issues = body.detail.map(
      (issue: { loc?: unknown[]; msg?: unknown }) =>
        `${(issue.loc ?? []).slice(1).join('.') || 'request'}: ${String(issue.msg)}`,
    );
    return { code: code === 'RequestValidationError' ? undefined : code, message: issues.join('; ') };
  }
  return { code, message: typeof body.detail === 'string' && body.detail ? body.detail : `HTTP ${status}` };
}

/** One JSON request to the daemon's Polar-compatible API (/v1) with the profile's token or TILL_TOKEN. */
export async function v1<T>(
  target: Target,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${bearer(target)}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Awaited<ReturnType<typeof request>>;
  try {
    response = await request(`${target.url}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new UnreachableError(target.url, (error as Error).message || String(error));
  }
  const text = await response.body.text();
  let json: unknown = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON: reported below.
  }
  if (response.statusCode >= 400) {
    const { code, message } = describeV1Error(response.statusCode, json);
    if (response.statusCode === 401)
      throw new ApiError(
        401,
        code,
        `${message}: the token was refused; run \`till login\` or check TILL_TOKEN`,
        EXIT.notSignedIn,
      );
    const missing = response.statusCode === 404 && message === 'Not found' ? notFoundMessage(path) : undefined;
    throw new ApiError(response.statusCode, code, missing ?? message, EXIT.failure);
  }
  if (response.statusCode === 204) return undefined as T;
  if (json === undefined)
    throw new CliError(
      `unexpected answer from ${target.url}${path} (HTTP ${response.statusCode}, not JSON); is this a Till daemon?`,
    );
  return json as T;
}

export { describeV1Error };
