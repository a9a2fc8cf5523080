import { readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import { freePort, PASSWORD, useSandboxes } from './till.js';

let daemon: TestDaemon;
const sandbox = useSandboxes(() => ({ TILL_URL: daemon.url }));

beforeAll(async () => {
  daemon = await startTestDaemon();
});
afterAll(async () => {
  await daemon?.stop();
});

describe('signup, login, whoami, logout', () => {
  it('walks the whole flow with the exit codes of each step', async () => {
    const cli = sandbox();
    const email = uniqueEmail();

    const signup = await cli.run(['signup', '--name', 'Ada', '--email', email, '--password-stdin', '--json'], {
      input: `${PASSWORD}\n`,
    });
    expect(signup.exitCode, signup.stderr).toBe(0);
    expect(signup.json).toMatchObject({
      url: daemon.url,
      profile: 'default',
      signedIn: true,
      user: { name: 'Ada', email },
    });
    expect(signup.stdout).not.toContain('token');

    const whoami = await cli.run(['whoami', '--json']);
    expect(whoami.exitCode, whoami.stderr).toBe(0);
    expect(whoami.json).toMatchObject({
      url: daemon.url,
      profile: 'default',
      tokenSource: 'profile',
      user: { email, name: 'Ada' },
    });
    expect(whoami.json.session.userId).toBe(whoami.json.user.id);
    expect(whoami.json.session).not.toHaveProperty('token');

    const logout = await cli.run(['logout', '--json']);
    expect(logout.exitCode, logout.stderr).toBe(0);
    expect(logout.json).toMatchObject({ signedOut: true });
    expect(JSON.parse(readFileSync(cli.configFile, 'utf8')).profiles.default).not.toHaveProperty('token');

    const loggedOut = await cli.run(['whoami']);
    expect(loggedOut.exitCode).toBe(4);
    expect(loggedOut.stderr).toMatch(/not signed in/);
    expect(loggedOut.stdout).toBe('');

    const again = await cli.run(['logout']);
    expect(again.exitCode).toBe(4);

    const login = await cli.run(['login', '--email', email, '--password-stdin', '--json'], { input: `${PASSWORD}\n` });
    expect(login.exitCode, login.stderr).toBe(0);
    expect(login.json).toMatchObject({ url: daemon.url, profile: 'default', user: { email } });

    const human = await cli.run(['whoami']);
    expect(human.exitCode).toBe(0);
    expect(human.stdout).toContain(`Ada <${email}>`);
  });

  it('refuses a wrong password with exit 1 and the server message and code', async () => {
    const cli = sandbox();
    const email = uniqueEmail();
    await cli.run(['signup', '--name', 'Bo', '--email', email, '--password-stdin'], { input: `${PASSWORD}\n` });
    const result = await cli.run(['login', '--email', email, '--password-stdin'], { input: 'not the password\n' });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('Invalid email or password (INVALID_EMAIL_OR_PASSWORD)');
  });

  it('reports a taken e-mail address with exit 1', async () => {
    const cli = sandbox();
    const email = uniqueEmail();
    expect(
      (await cli.run(['signup', '--name', 'Cy', '--email', email, '--password-stdin'], { input: `${PASSWORD}\n` }))
        .exitCode,
    ).toBe(0);
    const second = await cli.run(['signup', '--name', 'Cy', '--email', email, '--password-stdin'], {
      input: `${PASSWORD}\n`,
    });
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toContain('USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL');
  });

  it('keeps the config file private: 0600 in a 0700 directory, with named profiles', async () => {
    const cli = sandbox();
    const email = uniqueEmail();
    const result = await cli.run(
      ['--profile', 'work', 'signup', '--name', 'Di', '--email', email, '--password-stdin'],
      { input: `${PASSWORD}\n` },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    expect(statSync(cli.configFile).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(cli.configFile)).mode & 0o777).toBe(0o700);
    const config = JSON.parse(readFileSync(cli.configFile, 'utf8'));
    expect(config.currentProfile).toBe('work');
    expect(config.profiles.work).toMatchObject({ url: daemon.url, email });
    expect(typeof config.profiles.work.token).toBe('string');

    // Another profile has no session; the stored one is untouched by using it.
    expect((await cli.run(['--profile', 'other', 'whoami'])).exitCode).toBe(4);
    expect((await cli.run(['whoami'])).exitCode).toBe(0);

    // Switching the current profile switches the session; tokens never show up in the listing.
    expect((await cli.run(['profile', 'use', 'spare', '--json'])).json).toEqual({
      currentProfile: 'spare',
      created: true,
    });
    expect((await cli.run(['whoami'])).exitCode).toBe(4);
    const list = await cli.run(['profile', 'list', '--json']);
    expect(list.json).toEqual([
      { name: 'work', current: false, url: daemon.url, email, signedIn: true },
      { name: 'spare', current: true, url: 'http://127.0.0.1:4100', email: null, signedIn: false },
    ]);
    expect(list.stdout).not.toContain(config.profiles.work.token);
    expect((await cli.run(['profile', 'use', 'work'])).exitCode).toBe(0);
    expect((await cli.run(['whoami'])).exitCode).toBe(0);
  });
});

describe('token and URL precedence', () => {
  it('uses TILL_TOKEN over the stored session, and without any config file', async () => {
    const owner = sandbox();
    const email = uniqueEmail();
    await owner.run(['signup', '--name', 'Eve', '--email', email, '--password-stdin'], { input: `${PASSWORD}\n` });
    const token = JSON.parse(readFileSync(owner.configFile, 'utf8')).profiles.default.token as string;

    const ci = sandbox({ TILL_TOKEN: token });
    const whoami = await ci.run(['whoami', '--json']);
    expect(whoami.exitCode, whoami.stderr).toBe(0);
    expect(whoami.json).toMatchObject({ tokenSource: 'env', user: { email } });

    // A bad TILL_TOKEN wins over a good stored session: the server says 401 (or null), which is exit 4.
    const overridden = await owner.run(['whoami'], { env: { TILL_TOKEN: 'not-a-real-token' } });
    expect(overridden.exitCode).toBe(4);
  });

  it('takes --url over TILL_URL, and explains an unreachable daemon with exit 1', async () => {
    const port = await freePort();
    const cli = sandbox({ TILL_URL: `http://127.0.0.1:${port}` });
    const unreachable = await cli.run(['signup', '--name', 'Fay', '--email', uniqueEmail(), '--password-stdin'], {
      input: `${PASSWORD}\n`,
    });
    expect(unreachable.exitCode).toBe(1);
    expect(unreachable.stderr).toContain(`cannot reach the Till daemon at http://127.0.0.1:${port}`);

    const viaFlag = await cli.run(
      ['--url', daemon.url, 'signup', '--name', 'Fay', '--email', uniqueEmail(), '--password-stdin', '--json'],
      {
        input: `${PASSWORD}\n`,
      },
    );
    expect(viaFlag.exitCode, viaFlag.stderr).toBe(0);
    expect(viaFlag.json.url).toBe(daemon.url);
    // The stored session belongs to the flag's URL, and is not sent to TILL_URL's; nothing answers there, which is
    // what is said (exit 1), not "sign in" (issue 21 #2).
    const elsewhere = await cli.run(['whoami']);
    expect(elsewhere.exitCode).toBe(1);
    expect(elsewhere.stderr).toContain(`cannot reach the Till daemon at http://127.0.0.1:${port}`);
    expect((await cli.run(['whoami', '--url', daemon.url])).exitCode).toBe(0);
  });
});

describe('usage errors exit 2', () => {
  it('rejects an unknown option', async () => {
    const result = await sandbox().run(['whoami', '--no-such-option']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("unknown option '--no-such-option'");
  });

  it('rejects an unknown command and a missing required option', async () => {
    expect((await sandbox().run(['no-such-command'])).exitCode).toBe(2);
    const missing = await sandbox().run(['login', '--password-stdin'], { input: `${PASSWORD}\n` });
    expect(missing.exitCode).toBe(2);
    // --email is needed unless --provider signs in through the browser instead.
    expect(missing.stderr).toContain('pass either --email (password sign-in) or --provider (browser sign-in)');
  });

  it('asks for --password-stdin when a password is needed and stdin is not a terminal', async () => {
    const result = await sandbox().run(['login', '--email', uniqueEmail()]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--password-stdin');
  });

  it('rejects an empty --password-stdin and an invalid --url', async () => {
    const empty = await sandbox().run(['login', '--email', uniqueEmail(), '--password-stdin'], { input: '' });
    expect(empty.exitCode).toBe(2);
    const badUrl = await sandbox().run(['--url', 'not a url', 'whoami']);
    expect(badUrl.exitCode).toBe(2);
    expect(badUrl.stderr).toContain('--url is not a URL');
  });

  it('prints help and the version with exit 0', async () => {
    const help = await sandbox().run(['login', '--help']);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('--password-stdin');
    const version = await sandbox().run(['--version']);
    expect(version.exitCode).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
