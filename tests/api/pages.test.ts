import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';

const daemon = useTestDaemon();

describe('GET /api/auth/ok and /api/auth/error', () => {
  it('answers the health check', async () => {
    const response = await new TestClient(daemon().url).get('/api/auth/ok');
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ ok: true });
  });

  it('shows the error code and a Return to Application link', async () => {
    const response = await new TestClient(daemon().url).get('/api/auth/error', {
      query: { error: 'state_not_found', error_description: 'The state <b>expired</b>' },
    });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.text).toContain('<code>state_not_found</code>');
    expect(response.text).toContain('The state &lt;b&gt;expired&lt;/b&gt;');
    expect(response.text).toContain(`<a href="${daemon().url}/">Return to Application</a>`);
  });

  it("shows UNKNOWN for a code with characters outside [A-Za-z0-9_'-]", async () => {
    const response = await new TestClient(daemon().url).get('/api/auth/error', {
      query: { error: '<script>alert(1)</script>' },
    });
    expect(response.text).toContain('<code>UNKNOWN</code>');
    expect(response.text).not.toContain('<script>');
  });

  it('refuses POST /get-session as Better Auth does without deferred refresh', async () => {
    const response = await new TestClient(daemon().url).post('/api/auth/get-session', {});
    expect(response.status).toBe(405);
    expect(response.json.code).toBe('METHOD_NOT_ALLOWED_DEFER_SESSION_REQUIRED');
  });
});
