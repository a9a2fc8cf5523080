import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { TestClient, signUpUser } from '../helpers/http.js';

let daemon: TestDaemon;
let signedIn: TestClient;
beforeAll(async () => {
  daemon = await startTestDaemon();
  signedIn = new TestClient(daemon.url, { origin: daemon.url });
  await signUpUser(signedIn);
});
afterAll(async () => {
  await daemon?.stop();
});

const POST_ROUTES: Record<string, Record<string, unknown>> = {
  '/api/auth/sign-up/email': { name: 'N', email: 'valid@example.com', password: 'long enough password' },
  '/api/auth/sign-in/email': { email: 'valid@example.com', password: 'long enough password' },
  '/api/auth/update-user': { name: 'N' },
  '/api/auth/change-password': { currentPassword: 'long enough password', newPassword: 'long enough password 2' },
  '/api/auth/verify-password': { password: 'long enough password' },
  '/api/auth/revoke-session': { token: 'abc' },
};

const WRONG_VALUES: unknown[] = [null, 0, -1, 1.5, true, [], {}, ['a'], { nested: { deep: 1 } }, 'x'.repeat(10_000)];

function expectDocumentedError(response: { status: number; json: any; text: string }, label: string) {
  expect(response.status, label).toBeGreaterThanOrEqual(400);
  expect(response.status, label).toBeLessThan(500);
  expect(typeof response.json?.message, `${label}: ${response.text}`).toBe('string');
}

describe('bad input never reaches a 500', () => {
  it('refuses non-JSON bodies with 415 and malformed JSON with 400', async () => {
    for (const path of Object.keys(POST_ROUTES)) {
      const text = await signedIn.call('POST', path, { rawBody: 'hello', headers: { 'content-type': 'text/plain' } });
      expect(text.status, path).toBe(415);
      expect(text.json.code, path).toBe('UNSUPPORTED_MEDIA_TYPE');
      const broken = await signedIn.call('POST', path, {
        rawBody: '{"email": ',
        headers: { 'content-type': 'application/json' },
      });
      expect(broken.status, path).toBe(400);
      expect(broken.json, path).toEqual({ code: 'BAD_REQUEST', message: 'Invalid JSON in request body' });
      const noType = await signedIn.call('POST', path, { rawBody: '{}' });
      expect(noType.status, path).toBe(415);
    }
  });

  it('refuses missing bodies, non-object bodies, missing and extra fields with VALIDATION_ERROR', async () => {
    for (const [path, valid] of Object.entries(POST_ROUTES)) {
      const empty = await signedIn.post(path);
      expectDocumentedError(empty, `${path} (no body)`);
      for (const body of [null, [], 'string', 42]) {
        const response = await signedIn.call('POST', path, {
          rawBody: JSON.stringify(body),
          headers: { 'content-type': 'application/json' },
        });
        expectDocumentedError(response, `${path} ${JSON.stringify(body)}`);
      }
      const extra = await signedIn.post(path, { ...valid, isAdmin: true });
      expect(extra.status, path).toBe(400);
      expect(extra.json.code, path).toBe('VALIDATION_ERROR');
      expect(extra.json.message, path).toMatch(/^\[body\] Unrecognized key/);
      for (const field of Object.keys(valid)) {
        const { [field]: _omitted, ...missing } = valid;
        const response = await signedIn.post(path, missing);
        if (path === '/api/auth/update-user') continue; // every field of update-user is optional
        expect(response.status, `${path} without ${field}`).toBe(400);
        expect(response.json.message, `${path} without ${field}`).toContain(`[body.${field}]`);
      }
    }
  });

  it('answers every wrong-typed field with a 4xx in the documented shape', async () => {
    for (const [path, valid] of Object.entries(POST_ROUTES)) {
      for (const field of Object.keys(valid)) {
        for (const value of WRONG_VALUES) {
          const response = await signedIn.post(path, { ...valid, [field]: value });
          if (response.status < 400) continue; // some values are valid (a long name, a null image)
          expectDocumentedError(response, `${path} ${field}=${JSON.stringify(value).slice(0, 40)}`);
        }
      }
    }
  });

  it('refuses bodies over the size limit with 413', async () => {
    const huge = JSON.stringify({
      name: 'x'.repeat(2 * 1024 * 1024),
      email: 'a@example.com',
      password: 'long enough password',
    });
    const response = await new TestClient(daemon.url).call('POST', '/api/auth/sign-up/email', {
      rawBody: huge,
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(413);
    expect(response.json.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers unknown paths, wrong methods and server-only routes with 404 and an empty body', async () => {
    for (const [method, path] of [
      ['GET', '/api/auth/does-not-exist'],
      ['GET', '/api/auth/sign-in/email'],
      ['POST', '/api/auth/set-password'],
      ['GET', '/nowhere'],
    ] as const) {
      const response = await signedIn.call(method, path, method === 'POST' ? { body: {} } : {});
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.text, `${method} ${path}`).toBe('');
    }
  });
});
