import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOUR, SECOND } from '../../src/core/kernel/clock.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { DEFAULT_PASSWORD, TestClient, signUpUser, uniqueEmail } from '../helpers/http.js';

describe('origin and CSRF rules', () => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startTestDaemon({
      trustedOrigins: ['https://app.example.com', 'https://*.tenant.example.com', 'myapp://'],
    });
  });
  afterAll(async () => {
    await daemon?.stop();
  });

  it('requires a trusted Origin on POSTs that carry cookies', async () => {
    const c = new TestClient(daemon.url, { origin: daemon.url });
    await signUpUser(c);
    const noOrigin = new TestClient(daemon.url);
    for (const [name, value] of c.cookies) noOrigin.cookies.set(name, value);
    const missing = await noOrigin.post('/api/auth/update-user', { name: 'x' });
    expect(missing.status).toBe(403);
    expect(missing.json).toEqual({ code: 'MISSING_OR_NULL_ORIGIN', message: 'Missing or null Origin' });
    const nullOrigin = await noOrigin.post('/api/auth/update-user', { name: 'x' }, { headers: { origin: 'null' } });
    expect(nullOrigin.json.code).toBe('MISSING_OR_NULL_ORIGIN');
    for (const origin of ['https://evil.example', 'https://app.example.com.evil.example', 'http://app.example.com']) {
      const response = await noOrigin.withOrigin(origin).post('/api/auth/update-user', { name: 'x' });
      expect(response.status, origin).toBe(403);
      expect(response.json, origin).toEqual({ code: 'INVALID_ORIGIN', message: 'Invalid origin' });
    }
    for (const origin of ['https://app.example.com', 'https://shop.tenant.example.com']) {
      expect((await noOrigin.withOrigin(origin).post('/api/auth/update-user', { name: 'x' })).status, origin).toBe(200);
    }
    const viaReferer = await noOrigin.post(
      '/api/auth/update-user',
      { name: 'y' },
      { headers: { referer: `${daemon.url}/settings/profile` } },
    );
    expect(viaReferer.status).toBe(200);
  });

  it('does not origin-check GET requests', async () => {
    const c = new TestClient(daemon.url, { origin: daemon.url });
    await signUpUser(c);
    const response = await c.withOrigin('https://evil.example').get('/api/auth/get-session');
    expect(response.json.user).toBeDefined();
  });

  it('lets cookie-less scripts sign in, but holds browsers to the origin rules', async () => {
    const { email } = await signUpUser(new TestClient(daemon.url, { origin: daemon.url }));
    const body = { email, password: DEFAULT_PASSWORD };
    expect((await new TestClient(daemon.url).post('/api/auth/sign-in/email', body)).status).toBe(200);
    const browserNoOrigin = await new TestClient(daemon.url).post('/api/auth/sign-in/email', body, {
      headers: { 'sec-fetch-mode': 'cors' },
    });
    expect(browserNoOrigin.status).toBe(403);
    expect(browserNoOrigin.json.code).toBe('MISSING_OR_NULL_ORIGIN');
    const crossSiteNavigation = await new TestClient(daemon.url).post('/api/auth/sign-in/email', body, {
      headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', origin: 'https://evil.example' },
    });
    expect(crossSiteNavigation.status).toBe(403);
    expect(crossSiteNavigation.json).toEqual({
      code: 'CROSS_SITE_NAVIGATION_LOGIN_BLOCKED',
      message: 'Cross-site navigation login blocked. This request appears to be a CSRF attack.',
    });
    const untrusted = await new TestClient(daemon.url, { origin: 'https://evil.example' }).post(
      '/api/auth/sign-in/email',
      body,
    );
    expect(untrusted.json.code).toBe('INVALID_ORIGIN');
    const bearerScript = await new TestClient(daemon.url).post('/api/auth/sign-up/email', {
      name: 'S',
      email: uniqueEmail(),
      password: DEFAULT_PASSWORD,
    });
    expect(bearerScript.status).toBe(200);
  });

  it('refuses callback URLs that leave the trusted origins (open-redirect vectors)', async () => {
    const { email } = await signUpUser(new TestClient(daemon.url, { origin: daemon.url }));
    const vectors = [
      'http://malicious.com',
      '//evil.com',
      '/%5C/evil.com',
      '/\\/\\/evil.com',
      '/..%2F..%2Fevil.com',
      "javascript:alert('xss')",
      'data:text/html,<script>alert(1)</script>',
      'https://app.example.com.malicious.com/x',
      'http://malicious.com?.tenant.example.com',
    ];
    for (const callbackURL of vectors) {
      const response = await new TestClient(daemon.url, { origin: daemon.url }).post('/api/auth/sign-in/email', {
        email,
        password: DEFAULT_PASSWORD,
        callbackURL,
      });
      expect(response.status, callbackURL).toBe(403);
      expect(response.json, callbackURL).toEqual({ code: 'INVALID_CALLBACK_URL', message: 'Invalid callbackURL' });
    }
    for (const callbackURL of [
      '/dashboard?x=1',
      '/a+b/c',
      'https://app.example.com/welcome',
      `${daemon.url}/home`,
      'myapp://callback',
    ]) {
      const response = await new TestClient(daemon.url, { origin: daemon.url }).post('/api/auth/sign-in/email', {
        email,
        password: DEFAULT_PASSWORD,
        callbackURL,
      });
      expect(response.status, callbackURL).toBe(200);
    }
    const nonString = await new TestClient(daemon.url, { origin: daemon.url }).post('/api/auth/sign-in/email', {
      email,
      password: DEFAULT_PASSWORD,
      callbackURL: 42,
    });
    expect(nonString.status).toBe(403);
    expect(nonString.json).toEqual({ code: 'INVALID_CALLBACK_URL', message: 'Invalid callbackURL: expected a string' });
  });
});

describe('cookies on an https base URL', () => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startTestDaemon({ baseUrl: 'https://till.example.com' });
  });
  afterAll(async () => {
    await daemon?.stop();
  });

  it('uses the __Secure- prefix and the Secure flag', async () => {
    const c = new TestClient(daemon.url, { origin: 'https://till.example.com' });
    const response = await c.post('/api/auth/sign-up/email', {
      name: 'S',
      email: uniqueEmail(),
      password: DEFAULT_PASSWORD,
    });
    const cookie = response.setCookies[0]!;
    expect(cookie).toMatch(/^__Secure-better-auth\.session_token=/);
    expect(cookie).toMatch(/; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    expect((await c.get('/api/auth/get-session')).json.user).toBeDefined();
  });
});

describe('rate limiting', () => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startTestDaemon({ rateLimit: true, accountFailureLimit: 5 });
  });
  afterAll(async () => {
    await daemon?.stop();
  });

  it('allows 3 sign-ins per 10 s per address and route, then 429 with X-Retry-After', async () => {
    const { email } = await signUpUser(new TestClient(daemon.url, { origin: daemon.url }));
    daemon.clock.advance(10 * SECOND);
    const c = new TestClient(daemon.url, { origin: daemon.url });
    for (let i = 0; i < 3; i++)
      expect((await c.post('/api/auth/sign-in/email', { email, password: DEFAULT_PASSWORD })).status).toBe(200);
    const limited = await c.post('/api/auth/sign-in/email', { email, password: DEFAULT_PASSWORD });
    expect(limited.status).toBe(429);
    expect(limited.json).toEqual({ message: 'Too many requests. Please try again later.' });
    expect(limited.headers['x-retry-after']).toBe('10');
    // Other routes have their own, larger allowance.
    expect((await c.get('/api/auth/get-session')).status).toBe(200);
    daemon.clock.advance(10 * SECOND);
    expect((await c.post('/api/auth/sign-in/email', { email, password: DEFAULT_PASSWORD })).status).toBe(200);
  });

  it('allows 100 requests per 10 s on other routes', async () => {
    daemon.clock.advance(10 * SECOND);
    const c = new TestClient(daemon.url);
    const statuses = [];
    for (let i = 0; i < 101; i++) statuses.push((await c.get('/api/auth/get-session')).status);
    expect(statuses.slice(0, 100).every((status) => status === 200)).toBe(true);
    expect(statuses[100]).toBe(429);
  });

  it('caps failed sign-ins per account across addresses, known and unknown alike', async () => {
    daemon.clock.advance(10 * SECOND);
    const { email } = await signUpUser(new TestClient(daemon.url, { origin: daemon.url }));
    const unknown = uniqueEmail('ghost');
    for (let i = 0; i < 5; i++) {
      // Step past the per-address window each time: only the account cap is under test.
      daemon.clock.advance(10 * SECOND);
      expect(
        (await new TestClient(daemon.url).post('/api/auth/sign-in/email', { email, password: 'wrong password!' }))
          .status,
      ).toBe(401);
      expect(
        (
          await new TestClient(daemon.url).post('/api/auth/sign-in/email', {
            email: unknown,
            password: 'wrong password!',
          })
        ).status,
      ).toBe(401);
    }
    daemon.clock.advance(10 * SECOND);
    const capped = await new TestClient(daemon.url).post('/api/auth/sign-in/email', {
      email,
      password: DEFAULT_PASSWORD,
    });
    expect(capped.status).toBe(429);
    expect(Number(capped.headers['x-retry-after'])).toBeGreaterThan(0);
    daemon.clock.advance(10 * SECOND);
    expect(
      (
        await new TestClient(daemon.url).post('/api/auth/sign-in/email', {
          email: unknown,
          password: 'wrong password!',
        })
      ).status,
    ).toBe(429);
    daemon.clock.advance(HOUR);
    expect(
      (await new TestClient(daemon.url).post('/api/auth/sign-in/email', { email, password: DEFAULT_PASSWORD })).status,
    ).toBe(200);
  });
});
