import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import { PASSWORD, Sandbox } from './till.js';

let daemon: TestDaemon;
const sandboxes: Sandbox[] = [];

beforeAll(async () => {
  daemon = await startTestDaemon();
});
afterAll(async () => {
  await daemon?.stop();
  for (const created of sandboxes) created.cleanup();
});

function sandbox(env: Record<string, string> = {}): Sandbox {
  const created = new Sandbox({ TILL_URL: daemon.url, ...env });
  sandboxes.push(created);
  return created;
}

async function signedIn(): Promise<{ cli: Sandbox; email: string }> {
  const cli = sandbox();
  const email = uniqueEmail('keys');
  const signup = await cli.run(['signup', '--name', 'Grace', '--email', email, '--password-stdin'], {
    input: `${PASSWORD}\n`,
  });
  expect(signup.exitCode, signup.stderr).toBe(0);
  return { cli, email };
}

describe('till api-keys', () => {
  it('creates a key that a CI script then uses as TILL_TOKEN, lists it, and revokes it', async () => {
    const { cli, email } = await signedIn();

    const created = await cli.run(['api-keys', 'create', '--name', 'ci', '--expires-in', '30', '--prefix', 'till_']);
    expect(created.exitCode, created.stderr).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^till_[A-Za-z]{64}$/);
    expect(created.stderr).toMatch(/only time it is shown/);

    // Every command works with the key in TILL_TOKEN, as it does with a session token.
    const ci = sandbox({ TILL_TOKEN: key });
    const whoami = await ci.run(['whoami', '--json']);
    expect(whoami.exitCode, whoami.stderr).toBe(0);
    expect(whoami.json).toMatchObject({ tokenSource: 'env', user: { email } });
    expect((await ci.run(['user', 'update', '--name', 'Grace (CI)'])).exitCode).toBe(0);
    expect((await ci.run(['sessions', 'list', '--json'])).exitCode).toBe(0);
    const second = await ci.run(['api-keys', 'create', '--json']);
    expect(second.exitCode, second.stderr).toBe(0);
    expect(second.json).toMatchObject({ name: null, expiresAt: null, key: expect.stringMatching(/^[A-Za-z]{64}$/) });

    // logout cannot end a key, and says so instead of claiming a signed-out session.
    const logout = await ci.run(['logout']);
    expect(logout.exitCode).toBe(1);
    expect(logout.stderr).toMatch(/TILL_TOKEN holds an API key/);
    expect((await ci.run(['whoami'])).exitCode).toBe(0);

    const list = await ci.run(['api-keys', 'list', '--json']);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.json).toHaveLength(2);
    const first = list.json.find((entry: { name: string | null }) => entry.name === 'ci');
    expect(first).toMatchObject({ prefix: 'till_', start: key.slice(0, 6), enabled: true });
    expect(list.stdout).not.toContain(key);
    const table = await cli.run(['api-keys', 'list']);
    expect(table.exitCode).toBe(0);
    expect(table.stdout.trim().split('\n')).toHaveLength(2);
    expect(table.stdout).not.toContain(key);

    const revoked = await cli.run(['api-keys', 'revoke', first.id, '--json']);
    expect(revoked.exitCode, revoked.stderr).toBe(0);
    expect(revoked.json).toEqual({ revoked: true, id: first.id });

    // The revoked key stops working at once: "not signed in" (4); revoking it again fails (1).
    const refused = await ci.run(['whoami']);
    expect(refused.exitCode).toBe(4);
    expect(refused.stderr).toContain('Invalid API key. (INVALID_API_KEY)');
    expect((await ci.run(['api-keys', 'list'])).exitCode).toBe(4);
    const again = await cli.run(['api-keys', 'revoke', first.id]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain('API Key not found (KEY_NOT_FOUND)');
  });

  it('needs a session or a key, and checks its flags', async () => {
    const anonymous = sandbox();
    expect((await anonymous.run(['api-keys', 'list'])).exitCode).toBe(4);
    expect((await anonymous.run(['api-keys', 'create'])).exitCode).toBe(4);
    const { cli } = await signedIn();
    expect((await cli.run(['api-keys', 'create', '--expires-in', 'soon'])).exitCode).toBe(2);
    const tooLong = await cli.run(['api-keys', 'create', '--expires-in', '400']);
    expect(tooLong.exitCode).toBe(1);
    expect(tooLong.stderr).toContain('EXPIRES_IN_IS_TOO_LARGE');
    expect((await cli.run(['api-keys', 'revoke'])).exitCode).toBe(2);
  });
});
