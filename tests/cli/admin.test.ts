import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken } from '../../src/core/kernel/crypto.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import { PASSWORD, useSandboxes } from './till.js';

let daemon: TestDaemon;
const sandbox = useSandboxes(() => ({ TILL_URL: daemon.url }));

beforeAll(async () => {
  daemon = await startTestDaemon();
});
afterAll(async () => {
  await daemon?.stop();
});

/** A user with no password, as a social sign-up leaves one: sign up, then drop the credential account row. */
async function userWithoutPassword(): Promise<{ email: string; id: string }> {
  const email = uniqueEmail('admin');
  const signup = await sandbox().run(['signup', '--name', 'Hal', '--email', email, '--password-stdin', '--json'], {
    input: `${PASSWORD}\n`,
  });
  expect(signup.exitCode, signup.stderr).toBe(0);
  const id = signup.json.user.id as string;
  await daemon.core.db('accounts').where({ user_id: id, provider_id: 'credential' }).delete();
  return { email, id };
}

describe('admin set-password', () => {
  it('sets a password for a user without one, found by e-mail', async () => {
    const { email, id } = await userWithoutPassword();
    const operator = sandbox({ TILL_SECRET: daemon.config.secret });
    const result = await operator.run(['admin', 'set-password', '--email', email, '--password-stdin', '--json'], {
      input: 'brand new password\n',
    });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.json).toMatchObject({ status: true, user: { id, email } });

    const login = await sandbox().run(['login', '--email', email, '--password-stdin'], {
      input: 'brand new password\n',
    });
    expect(login.exitCode, login.stderr).toBe(0);
  });

  it('finds the user by id, and refuses a user who already has a password (PASSWORD_ALREADY_SET, exit 1)', async () => {
    const { id } = await userWithoutPassword();
    const operator = sandbox({ TILL_ADMIN_TOKEN: adminToken(daemon.config.secret) });
    const first = await operator.run(['admin', 'set-password', '--user-id', id, '--password-stdin'], {
      input: 'first password set\n',
    });
    expect(first.exitCode, first.stderr).toBe(0);
    const second = await operator.run(['admin', 'set-password', '--user-id', id, '--password-stdin'], {
      input: 'second password set\n',
    });
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toContain('PASSWORD_ALREADY_SET');
  });

  it('reads the secret from the data dir when nothing is in the environment', async () => {
    const { email } = await userWithoutPassword();
    const operator = sandbox();
    const dataDir = join(operator.root, 'daemon-data');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'secret'), `${daemon.config.secret}\n`, { mode: 0o600 });
    const result = await operator.run(['admin', 'set-password', '--email', email, '--password-stdin'], {
      env: { TILL_DATA_DIR: dataDir },
      input: 'from the secret file\n',
    });
    expect(result.exitCode, result.stderr).toBe(0);
  });

  it('exits 4 for a refused admin token or none at all, and 1 for an unknown user', async () => {
    const wrong = await sandbox({ TILL_ADMIN_TOKEN: 'till_admin_wrong' }).run(
      ['admin', 'set-password', '--email', uniqueEmail(), '--password-stdin'],
      {
        input: 'some password here\n',
      },
    );
    expect(wrong.exitCode).toBe(4);
    expect(wrong.stderr).toContain('UNAUTHORIZED');

    const none = await sandbox().run(['admin', 'set-password', '--email', uniqueEmail(), '--password-stdin'], {
      input: 'some password here\n',
    });
    expect(none.exitCode).toBe(4);
    expect(none.stderr).toContain('no admin token');

    const unknown = await sandbox({ TILL_SECRET: daemon.config.secret }).run(
      ['admin', 'set-password', '--email', uniqueEmail(), '--password-stdin'],
      {
        input: 'some password here\n',
      },
    );
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toContain('USER_NOT_FOUND');
  });

  it('needs exactly one of --email and --user-id', async () => {
    const operator = sandbox({ TILL_SECRET: daemon.config.secret });
    expect((await operator.run(['admin', 'set-password', '--password-stdin'], { input: 'x\n' })).exitCode).toBe(2);
    expect(
      (
        await operator.run(
          ['admin', 'set-password', '--email', 'a@example.com', '--user-id', 'x', '--password-stdin'],
          { input: 'x\n' },
        )
      ).exitCode,
    ).toBe(2);
  });
});

describe('admin token', () => {
  it('prints the token derived from TILL_SECRET', async () => {
    const result = await sandbox({ TILL_SECRET: daemon.config.secret }).run(['admin', 'token']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout.trim()).toBe(adminToken(daemon.config.secret));
    const json = await sandbox({ TILL_SECRET: daemon.config.secret }).run(['admin', 'token', '--json']);
    expect(json.json).toEqual({ token: adminToken(daemon.config.secret) });
  });
});
