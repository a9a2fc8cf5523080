import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';

describe('POST /api/auth/callback/:provider (form_post)', () => {
  const daemon = useTestDaemon();
  const post = (query: string, form: Record<string, string>) =>
    new TestClient(daemon().url).call('POST', `/api/auth/callback/idp${query}`, {
      rawBody: new URLSearchParams(form).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://idp.example' },
    });

  it('carries only the OAuth response parameters into the redirect', async () => {
    const response = await post('?iss=https%3A%2F%2Fidp.example&junk=1', {
      code: 'abc',
      state: 'def',
      user: '{"name":{}}',
      filler: 'x'.repeat(500_000),
      id_token: 'y'.repeat(100),
    });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.location as string);
    expect(location.pathname).toBe('/api/auth/callback/idp');
    expect([...location.searchParams.keys()]).toEqual(['iss', 'code', 'state', 'user']);
    expect(location.searchParams.get('code')).toBe('abc');
    expect((response.headers.location as string).length).toBeLessThan(500);
  });

  it('drops an over-long value rather than copying it', async () => {
    const response = await post('', { code: 'c'.repeat(100_000), state: 'def', error_description: 'd'.repeat(3000) });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.location as string);
    expect(location.searchParams.has('code')).toBe(false);
    expect(location.searchParams.has('error_description')).toBe(false);
    expect(location.searchParams.get('state')).toBe('def');
  });
});
