import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import { request } from 'undici';
import { pkceChallenge } from '../../src/core/oauth/client.js';
import { ManualClock } from '../../src/core/kernel/clock.js';
import type { OAuthConfig } from '../../src/core/config/index.js';
import { startTestDaemon, type TestDaemon } from './daemon.js';

export interface IdpAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  picture?: string;
}

export const IDP_CLIENT_ID = 'till-test-client';
export const IDP_CLIENT_SECRET = 'till-test-client-secret-0123456789abcdef';

/**
 * A real OpenID provider (oidc-provider) in the test process. The server listens first so its issuer is known
 * before the daemon starts; the provider is attached once the daemon's redirect URI is known. Its login and
 * consent "screen" signs in `nextLogin` at once, so a test drives the flow with plain HTTP redirects.
 */
export async function startIdp() {
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  const server = createServer((req, res) => {
    if (handler) handler(req, res);
    else res.writeHead(503).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accounts = new Map<string, IdpAccount>();
  let provider: Provider | null = null;

  const idp = {
    issuer,
    nextLogin: null as IdpAccount | null,
    get provider(): Provider {
      if (!provider) throw new Error('the IdP is not configured yet');
      return provider;
    },

    async configure(redirectUris: string[]): Promise<void> {
      const { privateKey } = await generateKeyPair('RS256', { extractable: true });
      const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
      provider = new Provider(issuer, {
        clients: [
          {
            client_id: IDP_CLIENT_ID,
            client_secret: IDP_CLIENT_SECRET,
            redirect_uris: redirectUris,
            response_types: ['code'],
            grant_types: ['authorization_code', 'refresh_token'],
            token_endpoint_auth_method: 'client_secret_post',
          },
        ],
        jwks: { keys: [jwk] },
        cookies: { keys: ['till-idp-cookie-key-0123456789'] },
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'picture'] },
        features: { devInteractions: { enabled: false } },
        // Like Google's, the ID token carries the profile claims, so ID-token sign-in has an address to use.
        conformIdTokenClaims: false,
        ttl: {
          Grant: 3600,
          Session: 3600,
          AccessToken: 3600,
          IdToken: 3600,
          Interaction: 600,
          AuthorizationCode: 60,
          RefreshToken: 86400,
        },
        // Every code flow gets a refresh token, so get-access-token and refresh-token have one to use.
        issueRefreshToken: async () => true,
        interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
        async findAccount(_ctx: unknown, sub: string) {
          const account = accounts.get(sub);
          if (!account) return undefined;
          return { accountId: sub, claims: async () => ({ ...account }) };
        },
      });
      const callback = provider.callback();
      handler = (req, res) => {
        if (!req.url?.startsWith('/interaction/')) {
          callback(req, res);
          return;
        }
        finishInteraction(req, res).catch((error) => res.writeHead(500).end(String(error)));
      };
    },

    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };

  async function finishInteraction(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const p = idp.provider;
    const details = await p.interactionDetails(req, res);
    const account = idp.nextLogin;
    if (!account) throw new Error('no nextLogin set');
    accounts.set(account.sub, account);
    const grant = new p.Grant({ accountId: account.sub, clientId: String(details.params.client_id) });
    grant.addOIDCScope(String(details.params.scope));
    const grantId = await grant.save();
    await p.interactionFinished(
      req,
      res,
      { login: { accountId: account.sub }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  }

  return idp;
}

export type Idp = Awaited<ReturnType<typeof startIdp>>;

/**
 * Follows redirects by hand with a cookie jar per origin, as a browser would, and stops at the first URL that
 * starts with `stopAt` (the daemon's callback), which it returns without requesting.
 */
export async function followUntil(
  start: string,
  stopAt: string,
  jar = new Map<string, Map<string, string>>(),
): Promise<string> {
  let url = start;
  for (let hop = 0; hop < 10; hop++) {
    if (url.startsWith(stopAt)) return url;
    const target = new URL(url);
    const cookies = jar.get(target.origin) ?? new Map<string, string>();
    jar.set(target.origin, cookies);
    const headers: Record<string, string> = {};
    if (cookies.size > 0) headers.cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await request(target, { method: 'GET', headers });
    const body = await response.body.text();
    const raw = response.headers['set-cookie'];
    for (const cookie of raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]) {
      const pair = cookie.split(';')[0]!;
      const eq = pair.indexOf('=');
      cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    const location = response.headers.location;
    if (response.statusCode < 300 || response.statusCode >= 400 || typeof location !== 'string') {
      throw new Error(`stopped at ${url}: HTTP ${response.statusCode} ${body.slice(0, 300)}`);
    }
    url = new URL(location, target).href;
  }
  throw new Error('too many redirects');
}

/** Runs a code flow at the IdP as a client of its own would, and returns the ID token (for ID-token sign-in). */
export async function obtainIdToken(idp: Idp, who: IdpAccount, nonce: string, redirectUri: string): Promise<string> {
  const discovery = (await (await request(`${idp.issuer}/.well-known/openid-configuration`)).body.json()) as Record<
    string,
    string
  >;
  const verifier = randomBytes(48).toString('base64url');
  const authorize = new URL(discovery.authorization_endpoint!);
  const params = {
    client_id: IDP_CLIENT_ID,
    response_type: 'code',
    scope: 'openid email profile',
    redirect_uri: redirectUri,
    state: 'id-token-test',
    nonce,
    code_challenge: pkceChallenge(verifier),
    code_challenge_method: 'S256',
  };
  for (const [name, value] of Object.entries(params)) authorize.searchParams.set(name, value);
  idp.nextLogin = who;
  const code = new URL(await followUntil(authorize.href, redirectUri)).searchParams.get('code')!;
  const form = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
    client_id: IDP_CLIENT_ID,
    client_secret: IDP_CLIENT_SECRET,
  };
  const token = await request(discovery.token_endpoint!, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return ((await token.body.json()) as { id_token: string }).id_token;
}

/**
 * An OpenID provider and a daemon that trusts it as provider `idp`, wired both ways (the provider knows the
 * daemon's callback). The provider signs with real time, so the daemon's clock starts at now.
 */
export async function startIdpDaemon(
  oauth: Partial<OAuthConfig> = {},
): Promise<{ idp: Idp; daemon: TestDaemon; stop(): Promise<void> }> {
  const idp = await startIdp();
  const daemon = await startTestDaemon(
    {
      oauth: {
        providers: [{ id: 'idp', issuer: idp.issuer, clientId: IDP_CLIENT_ID, clientSecret: IDP_CLIENT_SECRET }],
        trustedProviders: [],
        disableSignUp: false,
        disableImplicitSignUp: false,
        ...oauth,
      },
    },
    { clock: new ManualClock(new Date()) },
  );
  await idp.configure([`${daemon.url}/api/auth/callback/idp`]);
  return {
    idp,
    daemon,
    async stop() {
      await daemon.stop();
      await idp.close();
    },
  };
}
