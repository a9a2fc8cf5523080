import { describe, expect, it } from 'vitest';
import { createTrustedOrigins } from '../../src/daemon/auth/trusted-origins.js';
import { appendQuery } from '../../src/daemon/routes/auth/redirect.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';

// Each resolves, as a browser resolves it, to `//evil.com` (another host) once a query is appended.
const ESCAPES = [
  '/.//evil.com',
  '/a/..//evil.com',
  '/api/auth/../..//evil.com',
  '/././/evil.com/x',
  '/a/b/../..//evil.com?x=1',
];

describe('callback URLs are judged after dot segments are resolved', () => {
  const trusted = createTrustedOrigins('https://till.example', []);

  it('refuses paths that resolve to another host, keeps ordinary ones', () => {
    for (const url of ESCAPES) expect(trusted.isAllowedRedirect(url), url).toBe(false);
    for (const url of ['/', '/welcome', '/done?from=mail', '/a/./b', '/a/../b', '/.well-known/x'])
      expect(trusted.isAllowedRedirect(url), url).toBe(true);
  });

  it('never appends a query that turns a path into a host', () => {
    expect(appendQuery('/.//evil.com', { error: 'x' })).toBe('/evil.com?error=x');
    expect(appendQuery('/done?from=mail', { error: 'x' })).toBe('/done?from=mail&error=x');
  });
});

describe('GET /api/auth/verify-email with an escaping callbackURL', () => {
  const daemon = useTestDaemon();

  it('answers 403 INVALID_CALLBACK_URL, never a redirect off the host', async () => {
    for (const callbackURL of ESCAPES) {
      const response = await new TestClient(daemon().url).get('/api/auth/verify-email', {
        query: { token: 'x', callbackURL },
      });
      expect(response.status, callbackURL).toBe(403);
      expect(response.headers.location, callbackURL).toBeUndefined();
      expect(response.json, callbackURL).toEqual({ code: 'INVALID_CALLBACK_URL', message: 'Invalid callbackURL' });
    }
  });

  it('still redirects to a safe path with the error', async () => {
    const response = await new TestClient(daemon().url).get('/api/auth/verify-email', {
      query: { token: 'x', callbackURL: '/welcome' },
    });
    expect(response.status).toBe(302);
    expect(response.headers.location).toMatch(/^\/welcome\?error=/);
  });

  it('refuses the same in a POST body', async () => {
    const response = await new TestClient(daemon().url).post('/api/auth/send-verification-email', {
      email: 'a@example.com',
      callbackURL: '/a/..//evil.com',
    });
    expect(response.status).toBe(403);
    expect(response.json.code).toBe('INVALID_CALLBACK_URL');
  });
});
