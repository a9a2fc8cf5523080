import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/core/kernel/crypto.js';
import { pkceChallenge } from '../../src/core/oauth/client.js';
import type { TestDaemon } from '../helpers/daemon.js';
import { TestClient, uniqueEmail } from '../helpers/http.js';
import { followUntil, startIdpDaemon, type Idp, type IdpAccount } from '../helpers/oidc-idp.js';

let idp: Idp;
let daemon: TestDaemon;

let stop: () => Promise<void>;
beforeAll(async () => {
  ({ idp, daemon, stop } = await startIdpDaemon());
});
afterAll(async () => {
  await stop?.();
});

/** The CLI side talks to the daemon without cookies or an Origin, as the CLI does. */
const cli = () => new TestClient(daemon.url);
const LOOPBACK = 'http://127.0.0.1:53682/till-login/abc';

function account(): IdpAccount {
  return {
    sub: `sub-${randomBytes(6).toString('hex')}`,
    email: uniqueEmail('cli'),
    email_verified: true,
    name: 'Cli Person',
  };
}

/** Runs the browser's part: the IdP signs `who` in, the daemon's callback answers the redirect to the loopback. */
async function browserFlow(who = account(), callbackURL = LOOPBACK) {
  const verifier = randomBytes(32).toString('base64url');
  const start = await cli().post('/api/auth/sign-in/social', {
    provider: 'idp',
    callbackURL,
    cliChallenge: pkceChallenge(verifier),
    disableRedirect: true,
  });
  expect(start.status, start.text).toBe(200);
  idp.nextLogin = who;
  const callbackUrl = await followUntil(start.json.url, `${daemon.url}/api/auth/callback/idp`);
  // A fresh browser: it never saw the state cookie, which went to the CLI.
  const done = await new TestClient(daemon.url).get(callbackUrl);
  expect(done.status).toBe(302);
  const location = new URL(done.headers.location as string);
  return {
    who,
    verifier,
    done,
    location,
    code: location.searchParams.get('code')!,
    state: new URL(start.json.url).searchParams.get('state')!,
  };
}

describe('till login hand-off: sign-in/social with cliChallenge and /cli/exchange', () => {
  it('sends the browser to the loopback with a one-time code, and the verifier redeems it for a session', async () => {
    const { who, verifier, done, location, code, state } = await browserFlow();
    expect(`${location.origin}${location.pathname}`).toBe(LOOPBACK);
    expect(location.searchParams.get('state')).toBe(state);
    expect(code).toMatch(/^[A-Za-z0-9]{43}$/);
    // The browser is not signed in: the session is only handed to the CLI.
    expect(done.setCookies.some((cookie) => cookie.includes('session_token'))).toBe(false);
    const row = await daemon.core
      .db('verifications')
      .where({ identifier: `cli-exchange:${sha256Hex(code)}` })
      .first();
    expect(row.value).not.toContain(code);
    expect(new Date(row.expires_at).getTime() - daemon.clock.now().getTime()).toBe(2 * 60 * 1000);

    const exchanged = await cli().post('/api/auth/cli/exchange', { code, codeVerifier: verifier });
    expect(exchanged.status, exchanged.text).toBe(200);
    expect(exchanged.json).toMatchObject({
      token: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
      user: { email: who.email, name: 'Cli Person' },
    });
    expect(exchanged.setCookies).toEqual([]);
    const session = await cli().get('/api/auth/get-session', {
      headers: { authorization: `Bearer ${exchanged.json.token}` },
    });
    expect(session.json.user.email).toBe(who.email);
  });

  it('accepts an [::1] loopback too', async () => {
    const { location } = await browserFlow(account(), 'http://[::1]:8123/cb');
    expect(location.host).toBe('[::1]:8123');
  });

  it('a replayed code is refused', async () => {
    const { verifier, code } = await browserFlow();
    expect((await cli().post('/api/auth/cli/exchange', { code, codeVerifier: verifier })).status).toBe(200);
    const replay = await cli().post('/api/auth/cli/exchange', { code, codeVerifier: verifier });
    expect(replay.status).toBe(400);
    expect(replay.json).toEqual({ code: 'INVALID_EXCHANGE_CODE', message: 'Invalid or already used exchange code' });
  });

  it('a wrong verifier is refused, burns the code and ends its session', async () => {
    const { verifier, code } = await browserFlow();
    const wrong = await cli().post('/api/auth/cli/exchange', {
      code,
      codeVerifier: randomBytes(32).toString('base64url'),
    });
    expect(wrong.status).toBe(400);
    expect(wrong.json).toEqual({
      code: 'INVALID_CODE_VERIFIER',
      message: 'Code verifier does not match the challenge',
    });
    const after = await cli().post('/api/auth/cli/exchange', { code, codeVerifier: verifier });
    expect(after.json.code).toBe('INVALID_EXCHANGE_CODE');
  });

  it('a code older than 2 minutes is refused as expired', async () => {
    const { verifier, code } = await browserFlow();
    daemon.clock.advance(2 * 60 * 1000 + 1);
    const expired = await cli().post('/api/auth/cli/exchange', { code, codeVerifier: verifier });
    expect(expired.status).toBe(400);
    expect(expired.json.code).toBe('EXCHANGE_CODE_EXPIRED');
  });

  it('refuses an unknown code and a malformed verifier', async () => {
    const unknown = await cli().post('/api/auth/cli/exchange', {
      code: 'nope',
      codeVerifier: randomBytes(32).toString('base64url'),
    });
    expect(unknown.json.code).toBe('INVALID_EXCHANGE_CODE');
    expect((await cli().post('/api/auth/cli/exchange', { code: 'nope', codeVerifier: 'short' })).status).toBe(400);
  });

  it('refuses a loopback callbackURL without a cliChallenge', async () => {
    const response = await cli().post('/api/auth/sign-in/social', { provider: 'idp', callbackURL: LOOPBACK });
    expect(response.status).toBe(403);
    expect(response.json.code).toBe('INVALID_CALLBACK_URL');
  });

  it('refuses a cliChallenge with a non-loopback, missing or localhost callbackURL', async () => {
    const cliChallenge = pkceChallenge('x'.repeat(43));
    for (const callbackURL of [
      'https://till.example/done',
      'http://10.0.0.1:8000/cb',
      'https://127.0.0.1:8000/cb',
      'http://localhost:8000/cb',
      'http://127.0.0.1/cb',
      '/relative',
      undefined,
    ]) {
      const response = await cli().post('/api/auth/sign-in/social', { provider: 'idp', callbackURL, cliChallenge });
      expect(response.status, String(callbackURL)).toBe(403);
      expect(response.json.code).toBe('INVALID_CALLBACK_URL');
    }
  });

  it('sends a failed flow back to the loopback with the error and the state', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const start = await cli().post('/api/auth/sign-in/social', {
      provider: 'idp',
      callbackURL: LOOPBACK,
      cliChallenge: pkceChallenge(verifier),
    });
    const state = new URL(start.json.url).searchParams.get('state')!;
    const done = await new TestClient(daemon.url).get(`/api/auth/callback/idp?state=${state}&error=access_denied`);
    expect(done.headers.location).toBe(`${LOOPBACK}?state=${state}&error=access_denied`);
  });
});
