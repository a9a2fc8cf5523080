import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import {
  followUntil,
  IDP_CLIENT_ID,
  IDP_CLIENT_SECRET,
  startIdp,
  type Idp,
  type IdpAccount,
} from '../helpers/oidc-idp.js';
import { PASSWORD, Sandbox } from './till.js';

let idp: Idp;
let daemon: TestDaemon;
const sandboxes: Sandbox[] = [];

function sandbox(): Sandbox {
  const created = new Sandbox({ TILL_URL: daemon.url });
  sandboxes.push(created);
  return created;
}

beforeAll(async () => {
  idp = await startIdp();
  const oauth = {
    providers: [{ id: 'idp', issuer: idp.issuer, clientId: IDP_CLIENT_ID, clientSecret: IDP_CLIENT_SECRET }],
    trustedProviders: [],
    disableSignUp: false,
    disableImplicitSignUp: false,
  };
  // The IdP signs with the real time, so the daemon's clock starts there.
  daemon = await startTestDaemon({ oauth }, { clock: new ManualClock(new Date()) });
  await idp.configure([`${daemon.url}/api/auth/callback/idp`]);
});

afterAll(async () => {
  await daemon?.stop();
  await idp?.close();
  for (const created of sandboxes) created.cleanup();
});

function account(overrides: Partial<IdpAccount> = {}): IdpAccount {
  return {
    sub: `sub-${randomBytes(6).toString('hex')}`,
    email: uniqueEmail('cli-social'),
    email_verified: true,
    name: 'Web Person',
    ...overrides,
  };
}

/**
 * Watches the child's stderr until the sign-in URL shows up, without consuming the stream (execa still collects
 * it); the wait is bounded by the child: it fails as soon as stderr ends without a URL.
 */
function signInUrl(child: ReturnType<Sandbox['spawn']>): Promise<string> {
  const stream = child.stderr!;
  let seen = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      seen += String(chunk);
      const match = /^\s+(http\S+)$/m.exec(seen);
      if (!match) return;
      stream.off('data', onData);
      resolve(match[1]!);
    };
    stream.on('data', onData);
    stream.once('end', () => reject(new Error(`no sign-in URL on stderr: ${seen}`)));
  });
}

/** Plays the browser: the IdP signs `who` in, the daemon redirects to the CLI's loopback, which answers the page. */
async function browser(url: string, who: IdpAccount): Promise<{ status: number; page: string }> {
  idp.nextLogin = who;
  const callback = await followUntil(url, `${daemon.url}/api/auth/callback/idp`);
  const toLoopback = await request(callback);
  await toLoopback.body.dump();
  const location = toLoopback.headers.location as string;
  expect(location).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/till-login\//);
  const landing = await request(location);
  return { status: landing.statusCode, page: await landing.body.text() };
}

async function loginWithProvider(cli: Sandbox, who: IdpAccount) {
  const child = cli.spawn(['login', '--provider', 'idp', '--no-browser', '--json']);
  const landing = await browser(await signInUrl(child), who);
  const result = await child;
  return { landing, exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
}

describe('till login --provider', () => {
  it('signs in through the browser and the loopback, and stores the session', async () => {
    const cli = sandbox();
    const who = account();
    const { landing, exitCode, stdout, stderr } = await loginWithProvider(cli, who);
    expect(landing.status).toBe(200);
    expect(landing.page).toContain('You can close this window');
    expect(exitCode, stderr).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      url: daemon.url,
      profile: 'default',
      user: { email: who.email, name: 'Web Person' },
    });
    expect(stdout).not.toContain('token');

    const whoami = await cli.run(['whoami', '--json']);
    expect(whoami.exitCode, whoami.stderr).toBe(0);
    expect(whoami.json.user.email).toBe(who.email);
  });

  it('reports a refused sign-in with exit 1', async () => {
    const cli = sandbox();
    const email = uniqueEmail('cli-taken');
    expect(
      (await cli.run(['signup', '--name', 'Pat', '--email', email, '--password-stdin'], { input: `${PASSWORD}\n` }))
        .exitCode,
    ).toBe(0);
    const { landing, exitCode, stderr } = await loginWithProvider(cli, account({ email, email_verified: false }));
    expect(landing.status).toBe(400);
    expect(exitCode).toBe(1);
    expect(stderr).toContain('sign-in with idp failed: account_not_linked');
  });

  it('exits 2 on Ctrl-C while waiting for the browser', async () => {
    const child = sandbox().spawn(['login', '--provider', 'idp', '--no-browser']);
    await signInUrl(child);
    child.kill('SIGINT');
    const result = await child;
    expect(result.exitCode, `${result.signal} ${String(result.stderr)}`).toBe(2);
    expect(String(result.stderr)).toContain('sign-in interrupted');
  });

  it('refuses an unknown provider with exit 1, and --email with --provider as a usage error', async () => {
    const cli = sandbox();
    const unknown = await cli.run(['login', '--provider', 'nope', '--no-browser']);
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toContain('Provider not found (PROVIDER_NOT_FOUND)');
    expect((await cli.run(['login', '--provider', 'idp', '--email', 'a@b.example'])).exitCode).toBe(2);
    expect((await cli.run(['login'])).exitCode).toBe(2);
    expect((await cli.run(['login', '--provider', 'idp', '--timeout', 'soon'])).exitCode).toBe(2);
  });
});

describe('till accounts', () => {
  it('lists the accounts, unlinks one, and refuses to unlink the last', async () => {
    const cli = sandbox();
    const email = uniqueEmail('cli-accounts');
    expect(
      (await cli.run(['signup', '--name', 'Lee', '--email', email, '--password-stdin'], { input: `${PASSWORD}\n` }))
        .exitCode,
    ).toBe(0);
    // Signing in with a verified address at the provider links it to the password user.
    const web = await loginWithProvider(cli, account({ email }));
    expect(web.exitCode, web.stderr).toBe(0);

    const list = await cli.run(['accounts', 'list', '--json']);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.json.map((a: { providerId: string }) => a.providerId).sort()).toEqual(['credential', 'idp']);
    const table = await cli.run(['accounts', 'list']);
    expect(table.stdout).toMatch(/\tidp\t/);

    const social = list.json.find((a: { providerId: string }) => a.providerId === 'idp');
    const unlink = await cli.run(['accounts', 'unlink', social.id, '--json']);
    expect(unlink.exitCode, unlink.stderr).toBe(0);
    expect(unlink.json).toEqual({ unlinked: true, accountId: social.id });

    const last = (await cli.run(['accounts', 'list', '--json'])).json;
    expect(last).toHaveLength(1);
    const refused = await cli.run(['accounts', 'unlink', last[0].id]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain('FAILED_TO_UNLINK_LAST_ACCOUNT');
  });

  it('exits 4 when not signed in', async () => {
    const result = await sandbox().run(['accounts', 'list']);
    expect(result.exitCode).toBe(4);
  });
});
