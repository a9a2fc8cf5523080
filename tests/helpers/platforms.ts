import { createHash, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jwtVerify } from 'jose';
import { loadBenefitPlatformsConfig, type BenefitPlatformsConfig } from '../../src/core/config/index.js';

/**
 * GitHub and Discord on loopback: just the calls Till makes, with the request and response shapes their REST and
 * OAuth documentation gives (GitHub: collaborators, invitations, app installation tokens, /user, the OAuth web flow
 * with PKCE; Discord: guild members and roles with a bot token, OAuth2 code and refresh grants, /users/@me).
 */
export interface Platforms {
  url: string;
  config: BenefitPlatformsConfig;
  /** GitHub users and Discord users the next authorization hands out (one per connect). */
  github: {
    nextUser: { id: number; login: string };
    /** `owner/repo` → login → permission, for invitations and collaborators alike. */
    invitations: Map<string, Map<string, string>>;
    removed: Array<{ repo: string; login: string }>;
    /** The next n collaborator PUTs answer 502 (GitHub having a bad minute). */
    failNextInvites: number;
    inviteCalls: number;
  };
  discord: {
    nextUser: { id: string; username: string };
    /** guild → user → roles. */
    members: Map<string, Map<string, Set<string>>>;
    kicked: Array<{ guild: string; user: string }>;
    joins: Array<{ guild: string; user: string; accessToken: string; roles: string[] }>;
  };
  close(): Promise<void>;
}

const GITHUB_CLIENT = { id: 'gh-client', secret: 'gh-secret' };
const DISCORD_CLIENT = { id: '1234567890', secret: 'dc-secret' };
const BOT_TOKEN = 'bot-token-xyz';
const APP_ID = '4242';
const INSTALLATION_ID = 777;

function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (data += chunk));
    req.on('end', () => resolve(data));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers });
  res.end(body !== undefined ? JSON.stringify(body) : undefined);
}

export async function startPlatforms(): Promise<Platforms> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const codes = new Map<
    string,
    { platform: 'github' | 'discord'; challenge?: string; redirectUri: string; user: any }
  >();
  const userTokens = new Map<string, any>();
  const installationTokens = new Set<string>();
  const refreshTokens = new Map<string, any>();
  const state: Omit<Platforms, 'url' | 'config' | 'close'> = {
    github: {
      nextUser: { id: 1001, login: 'octo-buyer' },
      invitations: new Map(),
      removed: [],
      failNextInvites: 0,
      inviteCalls: 0,
    },
    discord: { nextUser: { id: '80351110224678912', username: 'nelly' }, members: new Map(), kicked: [], joins: [] },
  };

  async function appAuthorized(req: IncomingMessage, key: KeyObject): Promise<boolean> {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token) return false;
    try {
      const { payload } = await jwtVerify(token, key, { issuer: APP_ID, algorithms: ['RS256'] });
      return typeof payload.exp === 'number' && typeof payload.iat === 'number';
    } catch {
      return false;
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname;
    const body = await read(req);
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    let match: RegExpExecArray | null;

    // ---- OAuth authorize pages: the user consents at once and is sent back with a code.
    if (req.method === 'GET' && (path === '/github/login/oauth/authorize' || path === '/discord/oauth2/authorize')) {
      const platform = path.startsWith('/github') ? 'github' : 'discord';
      const expected = platform === 'github' ? GITHUB_CLIENT.id : DISCORD_CLIENT.id;
      if (url.searchParams.get('client_id') !== expected) return send(res, 400, { error: 'bad client_id' });
      const code = randomBytes(8).toString('hex');
      const user = platform === 'github' ? { ...state.github.nextUser } : { ...state.discord.nextUser };
      codes.set(code, {
        platform,
        challenge: url.searchParams.get('code_challenge') ?? undefined,
        redirectUri: url.searchParams.get('redirect_uri')!,
        user,
      });
      const back = new URL(url.searchParams.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state')!);
      return send(res, 302, undefined, { location: back.href });
    }
    // ---- OAuth token endpoints (form posts, client credentials in the form).
    if (
      req.method === 'POST' &&
      (path === '/github/login/oauth/access_token' || path === '/discord/api/oauth2/token')
    ) {
      const form = new URLSearchParams(body);
      const platform = path.startsWith('/github') ? 'github' : 'discord';
      const client = platform === 'github' ? GITHUB_CLIENT : DISCORD_CLIENT;
      if (form.get('client_id') !== client.id || form.get('client_secret') !== client.secret)
        return send(res, 401, { error: 'invalid_client' });
      if (form.get('grant_type') === 'refresh_token') {
        const user = refreshTokens.get(form.get('refresh_token') ?? '');
        if (!user) return send(res, 400, { error: 'invalid_grant' });
        const access = `dc-${randomBytes(8).toString('hex')}`;
        userTokens.set(access, user);
        return send(res, 200, {
          access_token: access,
          token_type: 'Bearer',
          expires_in: 604800,
          scope: 'identify guilds.join',
        });
      }
      const issued = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      if (!issued || issued.platform !== platform || issued.redirectUri !== form.get('redirect_uri'))
        return send(res, 400, { error: 'bad_verification_code' });
      if (issued.challenge) {
        const verifier = form.get('code_verifier') ?? '';
        if (createHash('sha256').update(verifier).digest('base64url') !== issued.challenge)
          return send(res, 400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
      }
      const access = `${platform === 'github' ? 'gho' : 'dc'}-${randomBytes(8).toString('hex')}`;
      userTokens.set(access, issued.user);
      if (platform === 'github')
        return send(res, 200, { access_token: access, token_type: 'bearer', scope: 'read:user' });
      const refresh = `dcr-${randomBytes(8).toString('hex')}`;
      refreshTokens.set(refresh, issued.user);
      return send(res, 200, {
        access_token: access,
        token_type: 'Bearer',
        expires_in: 604800,
        refresh_token: refresh,
        scope: 'identify guilds.join',
      });
    }

    // ---- GitHub REST.
    if (path.startsWith('/github/api/')) {
      const rest = path.slice('/github/api'.length);
      if (req.headers['user-agent'] === undefined) return send(res, 403, { message: 'User-Agent required' });
      if (req.method === 'GET' && rest === '/user') {
        const user = bearer ? userTokens.get(bearer) : null;
        return user
          ? send(res, 200, { login: user.login, id: user.id, type: 'User' })
          : send(res, 401, { message: 'Bad credentials' });
      }
      if ((match = /^\/repos\/([^/]+)\/([^/]+)\/installation$/.exec(rest)) && req.method === 'GET') {
        if (!(await appAuthorized(req, publicKey)))
          return send(res, 401, { message: 'A JSON web token could not be decoded' });
        return send(res, 200, { id: INSTALLATION_ID, account: { login: match[1] }, app_id: Number(APP_ID) });
      }
      if (req.method === 'POST' && rest === `/app/installations/${INSTALLATION_ID}/access_tokens`) {
        if (!(await appAuthorized(req, publicKey)))
          return send(res, 401, { message: 'A JSON web token could not be decoded' });
        const token = `ghs_${randomBytes(8).toString('hex')}`;
        installationTokens.add(token);
        return send(res, 201, { token, expires_at: new Date(Date.now() + 3600_000).toISOString() });
      }
      if (!bearer || !installationTokens.has(bearer)) return send(res, 401, { message: 'Bad credentials' });
      if ((match = /^\/repos\/([^/]+)\/([^/]+)\/collaborators\/([^/]+)$/.exec(rest))) {
        const repo = `${match[1]}/${match[2]}`;
        const login = decodeURIComponent(match[3]!);
        const invited = state.github.invitations.get(repo) ?? new Map<string, string>();
        state.github.invitations.set(repo, invited);
        if (req.method === 'PUT') {
          state.github.inviteCalls += 1;
          if (state.github.failNextInvites > 0) {
            state.github.failNextInvites -= 1;
            return send(res, 502, { message: 'Server Error' });
          }
          const permission = (JSON.parse(body || '{}') as { permission?: string }).permission ?? 'push';
          const existed = invited.has(login);
          invited.set(login, permission);
          if (existed) return send(res, 204);
          return send(res, 201, {
            id: invited.size,
            invitee: { login },
            permissions: permission,
            repository: { full_name: repo },
          });
        }
        if (req.method === 'DELETE') {
          state.github.removed.push({ repo, login });
          return send(res, 204);
        }
      }
      if ((match = /^\/repos\/([^/]+)\/([^/]+)\/invitations$/.exec(rest)) && req.method === 'GET') {
        const invited = state.github.invitations.get(`${match[1]}/${match[2]}`) ?? new Map();
        return send(
          res,
          200,
          [...invited.keys()].map((login, index) => ({ id: index + 1, invitee: { login } })),
        );
      }
      if ((match = /^\/repos\/([^/]+)\/([^/]+)\/invitations\/(\d+)$/.exec(rest)) && req.method === 'DELETE') {
        const invited = state.github.invitations.get(`${match[1]}/${match[2]}`) ?? new Map();
        const login = [...invited.keys()][Number(match[3]) - 1];
        if (login === undefined) return send(res, 404, { message: 'Not Found' });
        invited.delete(login);
        return send(res, 204);
      }
      return send(res, 404, { message: 'Not Found' });
    }

    // ---- Discord REST.
    if (path.startsWith('/discord/api/')) {
      const rest = path.slice('/discord/api'.length);
      if (req.method === 'GET' && rest === '/users/@me') {
        const user = bearer ? userTokens.get(bearer) : null;
        return user
          ? send(res, 200, { id: user.id, username: user.username, discriminator: '0' })
          : send(res, 401, { message: '401: Unauthorized', code: 0 });
      }
      if (req.headers.authorization !== `Bot ${BOT_TOKEN}`)
        return send(res, 401, { message: '401: Unauthorized', code: 0 });
      if ((match = /^\/guilds\/(\d+)\/members\/(\d+)$/.exec(rest))) {
        const [, guild, user] = match as unknown as [string, string, string];
        const members = state.discord.members.get(guild) ?? new Map<string, Set<string>>();
        state.discord.members.set(guild, members);
        if (req.method === 'PUT') {
          const input = JSON.parse(body || '{}') as { access_token?: string; roles?: string[] };
          const owner = input.access_token ? userTokens.get(input.access_token) : null;
          if (!owner || owner.id !== user)
            return send(res, 403, { message: 'Invalid OAuth2 access token', code: 50025 });
          state.discord.joins.push({ guild, user, accessToken: input.access_token!, roles: input.roles ?? [] });
          if (members.has(user)) return send(res, 204);
          members.set(user, new Set(input.roles ?? []));
          return send(res, 201, { user: { id: user, username: owner.username }, roles: input.roles ?? [] });
        }
        if (req.method === 'DELETE') {
          if (!members.delete(user)) return send(res, 404, { message: 'Unknown Member', code: 10007 });
          state.discord.kicked.push({ guild, user });
          return send(res, 204);
        }
      }
      if ((match = /^\/guilds\/(\d+)\/members\/(\d+)\/roles\/(\d+)$/.exec(rest))) {
        const [, guild, user, role] = match as unknown as [string, string, string, string];
        const roles = state.discord.members.get(guild)?.get(user);
        if (!roles) return send(res, 404, { message: 'Unknown Member', code: 10007 });
        if (req.method === 'PUT') roles.add(role);
        else if (req.method === 'DELETE') roles.delete(role);
        return send(res, 204);
      }
      return send(res, 404, { message: '404: Not Found', code: 0 });
    }
    send(res, 404, { message: 'Not Found' });
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => send(res, 500, { message: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = loadBenefitPlatformsConfig({
    TILL_GITHUB_API_URL: `${url}/github/api`,
    TILL_GITHUB_APP_ID: APP_ID,
    TILL_GITHUB_APP_PRIVATE_KEY: pem,
    TILL_GITHUB_CLIENT_ID: GITHUB_CLIENT.id,
    TILL_GITHUB_CLIENT_SECRET: GITHUB_CLIENT.secret,
    TILL_GITHUB_OAUTH_AUTHORIZE_URL: `${url}/github/login/oauth/authorize`,
    TILL_GITHUB_OAUTH_TOKEN_URL: `${url}/github/login/oauth/access_token`,
    TILL_DISCORD_API_URL: `${url}/discord/api`,
    TILL_DISCORD_BOT_TOKEN: BOT_TOKEN,
    TILL_DISCORD_CLIENT_ID: DISCORD_CLIENT.id,
    TILL_DISCORD_CLIENT_SECRET: DISCORD_CLIENT.secret,
    TILL_DISCORD_OAUTH_AUTHORIZE_URL: `${url}/discord/oauth2/authorize`,
    TILL_DISCORD_OAUTH_TOKEN_URL: `${url}/discord/api/oauth2/token`,
  });
  return {
    url,
    config,
    ...state,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
