import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { TestClient, uniqueEmail } from '../helpers/http.js';

describe("rate limits whatever the path's case", () => {
  const daemon = useTestDaemon({ rateLimit: true });

  it('counts /SIGN-IN/EMAIL and its case variants against the strict sign-in rule, in one counter', async () => {
    const client = new TestClient(daemon().url);
    const body = { email: uniqueEmail(), password: 'wrong password!' };
    const statuses: number[] = [];
    for (const path of [
      '/api/auth/SIGN-IN/EMAIL',
      '/api/auth/Sign-In/Email',
      '/api/auth/sign-in/email',
      '/api/auth/SIGN-IN/email',
    ]) {
      statuses.push((await client.post(path, body)).status);
    }
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    expect(statuses[3]).toBe(429);
  });

  it('applies the mail rule to /REQUEST-PASSWORD-RESET', async () => {
    const client = new TestClient(daemon().url);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push(
        (await client.post('/api/auth/REQUEST-PASSWORD-RESET', { email: uniqueEmail(), redirectTo: '/reset' })).status,
      );
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(statuses[3]).toBe(429);
  });
});

describe("the /api/auth checks whatever the prefix's case", () => {
  const daemon = useTestDaemon({ rateLimit: true });

  it('judges callback URLs under /API/AUTH and /Api/Auth', async () => {
    for (const prefix of ['/API/AUTH', '/Api/Auth']) {
      const response = await new TestClient(daemon().url).get(`${prefix}/verify-email`, {
        query: { token: 'x', callbackURL: 'https://evil.example/x' },
      });
      expect(response.status, prefix).toBe(403);
      expect(response.headers.location, prefix).toBeUndefined();
      expect(response.json.code, prefix).toBe('INVALID_CALLBACK_URL');
    }
  });

  it('reads the body, checks the origin and counts the request under /API/AUTH', async () => {
    const client = new TestClient(daemon().url);
    const body = { email: uniqueEmail(), password: 'wrong password!' };
    const statuses: number[] = [];
    for (const path of [
      '/API/AUTH/SIGN-IN/EMAIL',
      '/api/auth/sign-in/email',
      '/Api/Auth/Sign-In/Email',
      '/API/auth/sign-in/EMAIL',
    ])
      statuses.push((await client.post(path, body)).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    const crossSite = await new TestClient(daemon().url).post(
      '/API/AUTH/SIGN-UP/EMAIL',
      { email: uniqueEmail(), password: 'long enough pw', name: 'x' },
      {
        headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', origin: 'https://evil.example' },
      },
    );
    expect(crossSite.status).toBe(403);
    expect(crossSite.json.code).toBe('CROSS_SITE_NAVIGATION_LOGIN_BLOCKED');
  });
});
