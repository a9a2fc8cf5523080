import { request } from 'undici';

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
  setCookies: string[];
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as-is instead of JSON. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

/** A small HTTP client with a cookie jar, speaking to a test daemon the way a browser-less client would. */
export class TestClient {
  readonly cookies = new Map<string, string>();

  constructor(
    readonly baseUrl: string,
    private readonly defaults: { origin?: string; headers?: Record<string, string> } = {},
  ) {}

  withOrigin(origin: string): TestClient {
    const client = new TestClient(this.baseUrl, { ...this.defaults, origin });
    for (const [name, value] of this.cookies) client.cookies.set(name, value);
    return client;
  }

  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async call(method: string, path: string, options: RequestOptions = {}): Promise<HttpResponse> {
    const url = new URL(path, this.baseUrl);
    for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, value);
    const headers: Record<string, string> = { ...this.defaults.headers };
    if (this.defaults.origin) headers.origin = this.defaults.origin;
    if (this.cookies.size > 0) headers.cookie = this.cookieHeader();
    let body: string | Buffer | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    Object.assign(headers, options.headers);
    const response = await request(url, { method: method as 'GET', headers, body });
    const text = await response.body.text();
    const raw = response.headers['set-cookie'];
    const setCookies = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
    for (const cookie of setCookies) {
      const [pair, ...attributes] = cookie.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute))) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    let json: unknown = undefined;
    if (text && String(response.headers['content-type'] ?? '').includes('json')) json = JSON.parse(text);
    return { status: response.statusCode, headers: response.headers, text, json, setCookies };
  }

  get(path: string, options?: RequestOptions) {
    return this.call('GET', path, options);
  }

  post(path: string, body?: unknown, options: RequestOptions = {}) {
    return this.call('POST', path, { ...options, body });
  }
}

let counter = 0;
export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}.${process.pid}.${counter}.${Math.random().toString(36).slice(2, 8)}@example.com`;
}

export const DEFAULT_PASSWORD = 'correct horse battery staple';

/** Signs a new user up through the API; the client's jar then holds the session cookie. */
export async function signUpUser(
  client: TestClient,
  fields: { name?: string; email?: string; password?: string; rememberMe?: boolean } = {},
) {
  const email = fields.email ?? uniqueEmail();
  const password = fields.password ?? DEFAULT_PASSWORD;
  const response = await client.post('/api/auth/sign-up/email', {
    name: fields.name ?? 'Test User',
    email,
    password,
    ...(fields.rememberMe === undefined ? {} : { rememberMe: fields.rememberMe }),
  });
  if (response.status !== 200) throw new Error(`sign-up failed: ${response.status} ${response.text}`);
  return { email, password, token: response.json.token as string, user: response.json.user };
}
