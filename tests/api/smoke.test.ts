import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { TestClient, uniqueEmail } from '../helpers/http.js';

let daemon: TestDaemon;
beforeAll(async () => {
  daemon = await startTestDaemon();
});
afterAll(async () => {
  await daemon?.stop();
});

describe('smoke', () => {
  it('signs up and reads the session', async () => {
    const client = new TestClient(daemon.url, { origin: daemon.url });
    const ok = await client.get('/api/auth/ok');
    expect(ok.json).toEqual({ ok: true });
    const email = uniqueEmail();
    const signUp = await client.post('/api/auth/sign-up/email', { name: 'Ada', email, password: 'correct horse battery' });
    expect(signUp.status).toBe(200);
    const session = await client.get('/api/auth/get-session');
    expect(session.json.user.email).toBe(email);
  });
});
