import { request } from 'undici';

/** A GitHub or Discord API answer that means the call did not do its work (the grant job fails and is retried). */
export class PlatformError extends Error {
  constructor(
    readonly platform: string,
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'PlatformError';
  }
}

const TIMEOUTS = { headersTimeout: 10_000, bodyTimeout: 10_000 };

/** One JSON call to a platform's API; the body is parsed when there is one. */
export async function platformCall(
  platform: string,
  method: 'GET' | 'PUT' | 'POST' | 'DELETE' | 'PATCH',
  url: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; data: any }> {
  const response = await request(url, {
    method,
    headers: {
      accept: 'application/json',
      // GitHub refuses requests without one.
      'user-agent': 'Till',
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
    ...TIMEOUTS,
  });
  const text = await response.body.text();
  let data: unknown = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
  }
  return { status: response.statusCode, data };
}

/** Fails unless the status is one of `ok`, naming the call and what the platform said. */
export function expectStatus(
  platform: string,
  what: string,
  answer: { status: number; data: any },
  ok: readonly number[],
): void {
  if (ok.includes(answer.status)) return;
  const said =
    answer.data && typeof answer.data === 'object' && typeof answer.data.message === 'string'
      ? `: ${answer.data.message}`
      : '';
  throw new PlatformError(platform, answer.status, `${platform} ${what} answered HTTP ${answer.status}${said}`);
}
