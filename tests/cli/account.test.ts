import { readFileSync } from 'node:fs';
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

/** One person signed in on several "machines" (separate config directories), as sessions tests need. */
async function signedInOn(machines: number): Promise<{ email: string; clis: Sandbox[] }> {
  const email = uniqueEmail('account');
  const clis = Array.from({ length: machines }, () => {
    const cli = new Sandbox({ TILL_URL: daemon.url });
    sandboxes.push(cli);
    return cli;
  });
  const signup = await clis[0]!.run(['signup', '--name', 'Grace', '--email', email, '--password-stdin'], {
    input: `${PASSWORD}\n`,
  });
  expect(signup.exitCode, signup.stderr).toBe(0);
  for (const cli of clis.slice(1)) {
    const login = await cli.run(['login', '--email', email, '--password-stdin'], { input: `${PASSWORD}\n` });
    expect(login.exitCode, login.stderr).toBe(0);
  }
  return { email, clis };
}

function storedToken(cli: Sandbox): string | undefined {
  return JSON.parse(readFileSync(cli.configFile, 'utf8')).profiles.default.token;
}

describe('sessions', () => {
  it('lists sessions with the current one marked and no bearer token shown', async () => {
    const { clis } = await signedInOn(2);
    const list = await clis[0]!.run(['sessions', 'list', '--json']);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.json).toHaveLength(2);
    expect(list.json.filter((session: { current: boolean }) => session.current)).toHaveLength(1);
    for (const session of list.json) {
      expect(session).toMatchObject({
        id: expect.any(String),
        token: expect.stringMatching(/^[0-9a-f]{64}$/),
        expiresAt: expect.any(String),
      });
    }
    expect(list.stdout).not.toContain(storedToken(clis[0]!)!);

    const human = await clis[0]!.run(['sessions', 'list']);
    expect(human.exitCode).toBe(0);
    expect(human.stdout.trim().split('\n')).toHaveLength(2);
  });

  it('revokes one session by its handle', async () => {
    const { clis } = await signedInOn(2);
    const list = await clis[0]!.run(['sessions', 'list', '--json']);
    const other = list.json.find((session: { current: boolean }) => !session.current);
    const revoke = await clis[0]!.run(['sessions', 'revoke', other.token, '--json']);
    expect(revoke.exitCode, revoke.stderr).toBe(0);
    expect(revoke.json).toEqual({ revoked: true, current: false });
    expect((await clis[1]!.run(['whoami'])).exitCode).toBe(4);
    expect((await clis[0]!.run(['whoami'])).exitCode).toBe(0);
  });

  it('revoking the current session signs this machine out', async () => {
    const { clis } = await signedInOn(1);
    const list = await clis[0]!.run(['sessions', 'list', '--json']);
    const current = list.json.find((session: { current: boolean }) => session.current);
    const revoke = await clis[0]!.run(['sessions', 'revoke', current.token, '--json']);
    expect(revoke.json).toEqual({ revoked: true, current: true });
    expect(storedToken(clis[0]!)).toBeUndefined();
    expect((await clis[0]!.run(['whoami'])).exitCode).toBe(4);
  });

  it('revokes every other session', async () => {
    const { clis } = await signedInOn(3);
    const result = await clis[0]!.run(['sessions', 'revoke-others', '--json']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.json).toEqual({ revokedOthers: true });
    expect((await clis[1]!.run(['whoami'])).exitCode).toBe(4);
    expect((await clis[2]!.run(['whoami'])).exitCode).toBe(4);
    const list = await clis[0]!.run(['sessions', 'list', '--json']);
    expect(list.json).toHaveLength(1);
    expect(list.json[0].current).toBe(true);
  });

  it('needs a session: exit 4 without one', async () => {
    const cli = new Sandbox({ TILL_URL: daemon.url });
    sandboxes.push(cli);
    expect((await cli.run(['sessions', 'list'])).exitCode).toBe(4);
    expect((await cli.run(['sessions', 'revoke-others'])).exitCode).toBe(4);
  });
});

describe('user update', () => {
  it('changes the name and image and prints the stored user', async () => {
    const { email, clis } = await signedInOn(1);
    const result = await clis[0]!.run([
      'user',
      'update',
      '--name',
      'Grace Hopper',
      '--image',
      'https://example.com/g.png',
      '--json',
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.json.user).toMatchObject({ email, name: 'Grace Hopper', image: 'https://example.com/g.png' });

    const cleared = await clis[0]!.run(['user', 'update', '--image', '', '--json']);
    expect(cleared.exitCode, cleared.stderr).toBe(0);
    expect(cleared.json.user).toMatchObject({ name: 'Grace Hopper', image: null });

    const whoami = await clis[0]!.run(['whoami', '--json']);
    expect(whoami.json.user.name).toBe('Grace Hopper');
  });

  it('is a usage error without anything to change', async () => {
    const { clis } = await signedInOn(1);
    expect((await clis[0]!.run(['user', 'update'])).exitCode).toBe(2);
  });
});

describe('password change', () => {
  it('changes the password: the new one signs in, the old one no longer does', async () => {
    const { email, clis } = await signedInOn(1);
    const change = await clis[0]!.run(['password', 'change', '--password-stdin', '--json'], {
      input: `${PASSWORD}\nnew password 123\n`,
    });
    expect(change.exitCode, change.stderr).toBe(0);
    expect(change.json).toMatchObject({
      changed: true,
      revokedOtherSessions: false,
      sessionReplaced: false,
      user: { email },
    });
    expect((await clis[0]!.run(['whoami'])).exitCode).toBe(0);

    const oldLogin = await clis[0]!.run(['login', '--email', email, '--password-stdin'], { input: `${PASSWORD}\n` });
    expect(oldLogin.exitCode).toBe(1);
    const newLogin = await clis[0]!.run(['login', '--email', email, '--password-stdin'], {
      input: 'new password 123\n',
    });
    expect(newLogin.exitCode, newLogin.stderr).toBe(0);
  });

  it('with --revoke-other-sessions stores the replacement session and signs the others out', async () => {
    const { clis } = await signedInOn(2);
    const before = storedToken(clis[0]!);
    const change = await clis[0]!.run(['password', 'change', '--revoke-other-sessions', '--password-stdin', '--json'], {
      input: `${PASSWORD}\nnew password 456\n`,
    });
    expect(change.exitCode, change.stderr).toBe(0);
    expect(change.json).toMatchObject({ changed: true, revokedOtherSessions: true, sessionReplaced: true });
    expect(storedToken(clis[0]!)).not.toBe(before);
    expect((await clis[0]!.run(['whoami'])).exitCode).toBe(0);
    expect((await clis[1]!.run(['whoami'])).exitCode).toBe(4);
  });

  it('reports a wrong current password with exit 1, and a missing second line as a usage error', async () => {
    const { clis } = await signedInOn(1);
    const wrong = await clis[0]!.run(['password', 'change', '--password-stdin'], {
      input: 'wrong password\nnew password 789\n',
    });
    expect(wrong.exitCode).toBe(1);
    expect(wrong.stderr).toContain('INVALID_PASSWORD');
    const short = await clis[0]!.run(['password', 'change', '--password-stdin'], { input: `${PASSWORD}\n` });
    expect(short.exitCode).toBe(2);
    expect(short.stderr).toContain('line 2');
  });
});
