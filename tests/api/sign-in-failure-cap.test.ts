import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOUR, MINUTE } from '../../src/core/kernel/clock.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { testDialect } from '../helpers/database.js';
import { DEFAULT_PASSWORD, TestClient, signUpUser } from '../helpers/http.js';

// Issue 16 #12: the per-address cap used to refuse the right password from everyone, so anyone could lock anyone
// out. Now it holds back only the client addresses that have failed for the address themselves.

const LIMIT = 5;

function signIn(daemon: TestDaemon, client: string, email: string, password: string) {
  return new TestClient(daemon.url).post(
    '/api/auth/sign-in/email',
    { email, password },
    { headers: { 'x-forwarded-for': client } },
  );
}

describe('failed sign-ins per address and client', () => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startTestDaemon({ trustProxy: true, accountFailureLimit: LIMIT });
  });
  afterAll(async () => {
    await daemon?.stop();
  });

  it('lets the owner in from a client that has not been failing, and holds back the one that has', async () => {
    const { email } = await signUpUser(new TestClient(daemon.url, { origin: daemon.url }));
    for (let i = 0; i < LIMIT; i++)
      expect((await signIn(daemon, '203.0.113.66', email, 'wrong password!')).status).toBe(401);

    const attacker = await signIn(daemon, '203.0.113.66', email, DEFAULT_PASSWORD);
    expect(attacker.status).toBe(429);
    expect(attacker.json).toEqual({ message: 'Too many requests. Please try again later.' });
    expect(attacker.headers['x-retry-after']).toBe('3600');

    const owner = await signIn(daemon, '198.51.100.7', email, DEFAULT_PASSWORD);
    expect(owner.status).toBe(200);
    expect(owner.json.user.email).toBe(email);
    // Signing in again from there, later, still works: the owner's success did not lift the attacker's hold.
    daemon.clock.advance(MINUTE);
    expect((await signIn(daemon, '198.51.100.7', email, DEFAULT_PASSWORD)).status).toBe(200);
    expect((await signIn(daemon, '203.0.113.66', email, DEFAULT_PASSWORD)).status).toBe(429);
  });

  it('holds back a new client once it fails itself while the address is over the cap', async () => {
    const { email } = await signUpUser(new TestClient(daemon.url, { origin: daemon.url }));
    for (let i = 0; i < LIMIT; i++)
      expect((await signIn(daemon, `192.0.2.${i + 1}`, email, 'wrong password!')).status).toBe(401);
    // Each of those clients failed once, and the address is at the cap: all of them wait.
    expect((await signIn(daemon, '192.0.2.1', email, DEFAULT_PASSWORD)).status).toBe(429);
    // A fresh client gets its one try, and after failing it waits too.
    expect((await signIn(daemon, '192.0.2.200', email, 'wrong password!')).status).toBe(401);
    expect((await signIn(daemon, '192.0.2.200', email, DEFAULT_PASSWORD)).status).toBe(429);
    // The window ends and everyone is free again.
    daemon.clock.advance(HOUR);
    expect((await signIn(daemon, '192.0.2.1', email, DEFAULT_PASSWORD)).status).toBe(200);
  });

  it('keeps counting a client below the cap without holding it back', async () => {
    const { email } = await signUpUser(new TestClient(daemon.url, { origin: daemon.url }));
    for (let i = 0; i < LIMIT - 1; i++)
      expect((await signIn(daemon, '203.0.113.9', email, 'wrong password!')).status).toBe(401);
    expect((await signIn(daemon, '203.0.113.9', email, DEFAULT_PASSWORD)).status).toBe(200);
    // The success forgot this client's failures, not the address's: one more elsewhere reaches the cap, and
    // this client is still free, having no failures of its own left.
    expect((await signIn(daemon, '203.0.113.10', email, 'wrong password!')).status).toBe(401);
    expect((await signIn(daemon, '203.0.113.10', email, DEFAULT_PASSWORD)).status).toBe(429);
    expect((await signIn(daemon, '203.0.113.9', email, DEFAULT_PASSWORD)).status).toBe(200);
  });

  it.runIf(testDialect === 'postgres')('PostgreSQL: holds across daemons sharing the database', async () => {
    const other = await startTestDaemon({
      databaseUrl: daemon.database.url,
      trustProxy: true,
      accountFailureLimit: LIMIT,
    });
    try {
      other.clock.set(daemon.clock.now());
      const { email } = await signUpUser(new TestClient(daemon.url, { origin: daemon.url }));
      for (let i = 0; i < LIMIT; i++)
        expect((await signIn(daemon, '203.0.113.77', email, 'wrong password!')).status).toBe(401);
      expect((await signIn(other, '203.0.113.77', email, DEFAULT_PASSWORD)).status).toBe(429);
      expect((await signIn(other, '198.51.100.8', email, DEFAULT_PASSWORD)).status).toBe(200);
    } finally {
      await other.stop();
    }
  });
});
