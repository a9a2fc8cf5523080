import { createPrivateKey } from 'node:crypto';
import { SignJWT } from 'jose';
import type { BenefitStrategy, StrategyContext } from '../benefit-grants/strategies.js';
import type { GitHubPlatformConfig } from '../config/index.js';
import type { CustomerAccountService } from '../customer-accounts/service.js';
import { expectStatus, platformCall, PlatformError } from '../customer-accounts/platform-http.js';

interface RepositoryTerms {
  repository_owner: string;
  repository_name: string;
  permission: string;
}

const GITHUB_HEADERS = { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' };

export const CONNECT_GITHUB = 'Connect your GitHub account to receive this benefit.';

/**
 * The token Till calls GitHub's REST API with: the configured one, or an installation token of the configured GitHub
 * App for the repository's owner (from an app JWT; kept until shortly before it expires, about an hour).
 */
function githubTokens(config: GitHubPlatformConfig) {
  const cache = new Map<string, { token: string; expiresAt: number }>();
  const credentials = config.credentials;
  const key = credentials?.kind === 'app' ? createPrivateKey(credentials.privateKey) : null;

  async function appJwt(appId: string): Promise<string> {
    // GitHub compares with its own (real) time, so the wall clock, not Till's simulated one; 60 s of allowed skew.
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: 'RS256' })
      .setIssuedAt(now - 60)
      .setExpirationTime(now + 9 * 60)
      .setIssuer(appId)
      .sign(key!);
  }

  return async (owner: string, repo: string): Promise<string> => {
    if (!credentials) throw new PlatformError('GitHub', 0, 'GitHub credentials are not configured');
    if (credentials.kind === 'token') return credentials.token;
    const cached = cache.get(owner.toLowerCase());
    if (cached && cached.expiresAt - 60_000 > Date.now()) return cached.token;
    const jwt = await appJwt(credentials.appId);
    const auth = { ...GITHUB_HEADERS, authorization: `Bearer ${jwt}` };
    const installation = await platformCall(
      'GitHub',
      'GET',
      `${config.apiUrl}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/installation`,
      auth,
    );
    expectStatus('GitHub', 'app installation lookup', installation, [200]);
    const issued = await platformCall(
      'GitHub',
      'POST',
      `${config.apiUrl}/app/installations/${encodeURIComponent(String(installation.data.id))}/access_tokens`,
      auth,
    );
    expectStatus('GitHub', 'installation token', issued, [201]);
    const token = String(issued.data.token);
    const expiresAt = Date.parse(String(issued.data.expires_at)) || Date.now() + 30 * 60_000;
    cache.set(owner.toLowerCase(), { token, expiresAt });
    return token;
  };
}

/**
 * github_repository (Polar's strategy): the customer's connected GitHub account is invited to the repository with
 * the benefit's permission; revoked, it is removed as a collaborator and any pending invitation is withdrawn.
 * Without a connected account the grant waits for the customer (action required).
 */
export function githubRepositoryStrategy(deps: {
  config: GitHubPlatformConfig;
  accounts: Pick<CustomerAccountService, 'usableAccount'>;
}): BenefitStrategy {
  const { config } = deps;
  const tokenFor = githubTokens(config);

  async function call(terms: RepositoryTerms, method: 'GET' | 'PUT' | 'DELETE', path: string, body?: unknown) {
    const token = await tokenFor(terms.repository_owner, terms.repository_name);
    const repo = `${encodeURIComponent(terms.repository_owner)}/${encodeURIComponent(terms.repository_name)}`;
    return platformCall(
      'GitHub',
      method,
      `${config.apiUrl}/repos/${repo}${path}`,
      { ...GITHUB_HEADERS, authorization: `Bearer ${token}` },
      body,
    );
  }

  /** The login of the account a grant invited: the connected one, or GitHub's answer for its id. */
  async function loginOf(ctx: StrategyContext, accountId: string, terms: RepositoryTerms): Promise<string> {
    const account = await deps.accounts.usableAccount(ctx.trx, ctx.grant.customerId, 'github');
    if (account && account.accountId === accountId && account.username) return account.username;
    const token = await tokenFor(terms.repository_owner, terms.repository_name);
    const user = await platformCall('GitHub', 'GET', `${config.apiUrl}/user/${encodeURIComponent(accountId)}`, {
      ...GITHUB_HEADERS,
      authorization: `Bearer ${token}`,
    });
    expectStatus('GitHub', 'user lookup', user, [200]);
    return String(user.data.login);
  }

  async function remove(ctx: StrategyContext, terms: RepositoryTerms, accountId: string): Promise<void> {
    const login = await loginOf(ctx, accountId, terms);
    const removed = await call(terms, 'DELETE', `/collaborators/${encodeURIComponent(login)}`);
    expectStatus('GitHub', 'collaborator removal', removed, [204, 404]);
    // An invitation not accepted yet is not a collaborator: it is withdrawn instead.
    const invitations = await call(terms, 'GET', '/invitations?per_page=100');
    expectStatus('GitHub', 'invitation list', invitations, [200]);
    for (const invitation of Array.isArray(invitations.data) ? invitations.data : []) {
      if (String(invitation?.invitee?.login ?? '').toLowerCase() !== login.toLowerCase()) continue;
      const withdrawn = await call(terms, 'DELETE', `/invitations/${encodeURIComponent(String(invitation.id))}`);
      expectStatus('GitHub', 'invitation removal', withdrawn, [204, 404]);
    }
  }

  async function grant(ctx: StrategyContext) {
    const terms = ctx.benefit.properties as unknown as RepositoryTerms;
    const account = await deps.accounts.usableAccount(ctx.trx, ctx.grant.customerId, 'github');
    if (!account) return { needsCustomerAction: CONNECT_GITHUB };
    // 201: invited; 204: already a collaborator (or invited), permission updated. Repeating it is harmless.
    const invited = await call(terms, 'PUT', `/collaborators/${encodeURIComponent(account.username ?? '')}`, {
      permission: terms.permission,
    });
    expectStatus('GitHub', 'collaborator invitation', invited, [201, 204]);
    return {
      properties: {
        account_id: account.accountId,
        repository_owner: terms.repository_owner,
        repository_name: terms.repository_name,
        permission: terms.permission,
        granted_account_id: account.accountId,
      },
    };
  }

  const grantedTo = (ctx: StrategyContext) =>
    typeof ctx.grant.properties.granted_account_id === 'string' ? ctx.grant.properties.granted_account_id : null;
  const grantedTerms = (ctx: StrategyContext): RepositoryTerms | null =>
    typeof ctx.grant.properties.repository_owner === 'string'
      ? (ctx.grant.properties as unknown as RepositoryTerms)
      : null;

  return {
    grant,
    async revoke(ctx) {
      const accountId = grantedTo(ctx);
      const terms = grantedTerms(ctx) ?? (ctx.benefit.properties as unknown as RepositoryTerms);
      if (accountId) await remove(ctx, terms, accountId);
      return ctx.grant.properties;
    },
    async update(ctx) {
      const before = grantedTerms(ctx);
      const after = ctx.benefit.properties as unknown as RepositoryTerms;
      const accountId = grantedTo(ctx);
      const moved =
        before &&
        (before.repository_owner.toLowerCase() !== after.repository_owner.toLowerCase() ||
          before.repository_name.toLowerCase() !== after.repository_name.toLowerCase());
      if (moved && accountId) await remove(ctx, before, accountId);
      return grant(ctx);
    },
  };
}
