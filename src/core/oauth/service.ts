import { authError } from '../auth/errors.js';
import { verificationsRepository } from '../auth/repository.js';
import type { RequestMeta, SessionService } from '../auth/sessions.js';
import type { Clock } from '../kernel/clock.js';
import { sha256Hex } from '../kernel/crypto.js';
import type { TillConfig } from '../config/index.js';
import type { Db } from '../database/index.js';
import { DomainError } from '../kernel/errors.js';
import { newAuthId, randomAlphanumeric } from '../kernel/ids.js';
import type { SecretBox } from '../kernel/secret-box.js';
import { createOAuthAccounts } from './accounts.js';
import { createCliHandoff } from './cli-handoff.js';
import { createProviderRegistry, OAuthFlowError, type ResolvedProvider, type TokenSet } from './client.js';
import { createAccountLinker, type LinkTarget, type SocialSignIn } from './link.js';
import type { ProviderProfile } from './providers.js';

/** Spec §9: an OAuth state lives 10 minutes, is 32 characters, and carries a 128-character PKCE verifier. */
export const STATE_TTL_MS = 10 * 60 * 1000;
const STATE_LENGTH = 32;
const VERIFIER_LENGTH = 128;
const STATE_PREFIX = 'auth-state:';

/**
 * The state row's identifier: only a digest of the state is stored, as for reset tokens, so the table alone never
 * names a flow in progress. (The sealed verifier stays bound to the state itself, which the callback brings.)
 */
export function stateIdentifier(state: string): string {
  return STATE_PREFIX + sha256Hex(state);
}

/** What the state row remembers between the redirect to the provider and the callback. */
interface StoredState {
  providerId: string;
  /** Sealed: whoever reads the table must not be able to finish someone else's flow. */
  codeVerifier: string;
  callbackURL: string;
  errorURL: string | null;
  newUserURL: string | null;
  requestSignUp: boolean;
  link: LinkTarget | null;
  /** A `till login` flow: the CLI's S256 challenge; the browser then gets an exchange code, not a cookie. */
  cliChallenge?: string;
}

export interface StartInput {
  provider: string;
  callbackURL?: string;
  errorCallbackURL?: string;
  newUserCallbackURL?: string;
  scopes?: string[];
  requestSignUp?: boolean;
  loginHint?: string;
  link?: LinkTarget;
  cliChallenge?: string;
}

export interface CallbackInput {
  providerId: string;
  state?: string;
  code?: string;
  error?: string;
  errorDescription?: string;
  deviceId?: string;
  /** The state the browser's signed state cookie carries, if any. */
  cookieState: string | null;
}

export interface IdTokenInput {
  token: string;
  nonce?: string;
  accessToken?: string;
  refreshToken?: string;
  expiresAt?: number;
}

/** Where the callback sends the browser, and the new session when it signed someone in. */
export interface CallbackOutcome {
  location: string;
  signedIn: SocialSignIn | null;
  /** True for a CLI flow: the session went into an exchange code, and the browser must not get a cookie. */
  handedOff?: boolean;
}

export function withQuery(url: string, params: Record<string, string | undefined>): string {
  const relative = url.startsWith('/');
  const parsed = new URL(url, 'https://till.invalid');
  for (const [name, value] of Object.entries(params)) if (value !== undefined) parsed.searchParams.set(name, value);
  return relative ? parsed.href.slice(parsed.origin.length) : parsed.href;
}

export type OAuthService = ReturnType<typeof createOAuthService>;

export function createOAuthService(deps: {
  db: Db;
  clock: Clock;
  config: TillConfig;
  box: SecretBox;
  sessions: SessionService;
}) {
  const { db, clock, config, box } = deps;
  const registry = createProviderRegistry(config.oauth, clock);
  const linker = createAccountLinker({ db, clock, box, sessions: deps.sessions, config: config.oauth });
  const defaultErrorURL = `${config.baseUrl}/api/auth/error`;
  const redirectUri = (providerId: string) => `${config.baseUrl}/api/auth/callback/${providerId}`;
  const cliHandoff = createCliHandoff({ db, clock, box, sessions: deps.sessions });

  async function provider(id: string): Promise<ResolvedProvider> {
    const found = await registry.get(id);
    if (!found) throw new DomainError(404, 'PROVIDER_NOT_FOUND', 'Provider not found');
    return found;
  }

  /**
   * Better Auth's order: an unknown (or expired, or used) state asks the user to restart; a known one that the
   * browser's cookie does not vouch for is a mismatch and stays unused, so a forged callback cannot burn it.
   */
  async function takeState(state: string, cookieState: string | null): Promise<StoredState | 'unknown' | 'mismatch'> {
    const verifications = verificationsRepository(db);
    const now = clock.now();
    const row = await verifications.findActive(stateIdentifier(state), now);
    if (!row) return 'unknown';
    let stored: StoredState;
    try {
      stored = JSON.parse(row.value) as StoredState;
    } catch {
      return 'unknown';
    }
    // The CLI, not the browser, started a CLI flow, so no cookie vouches for it; the CLI's verifier binds it
    // instead, and such a flow never signs the browser in, so a forged callback signs nobody in anywhere.
    if (!stored.cliChallenge && cookieState !== state) return 'mismatch';
    // Single use: of two callbacks racing with one state, only one gets past this line.
    if (!(await verifications.consume({ id: row.id }, now))) return 'unknown';
    try {
      return { ...stored, codeVerifier: box.open(stored.codeVerifier, STATE_PREFIX + state) };
    } catch {
      return 'unknown';
    }
  }

  /** Verifies a client-supplied ID token and reads the identity from it (Better Auth's errors and statuses). */
  async function fromIdToken(
    providerId: string,
    idToken: IdTokenInput,
  ): Promise<{ found: ResolvedProvider; profile: ProviderProfile; tokens: TokenSet }> {
    const found = await provider(providerId);
    if (!found.idToken) throw new DomainError(404, 'ID_TOKEN_NOT_SUPPORTED', 'id_token not supported');
    const claims = await registry.verifyIdToken(found, idToken.token, idToken.nonce);
    if (!claims) throw authError(401, 'INVALID_TOKEN');
    const profile = found.mapProfile(claims as Record<string, unknown>);
    if (!profile.id) throw authError(401, 'FAILED_TO_GET_USER_INFO');
    if (!profile.email) throw new DomainError(401, 'USER_EMAIL_NOT_FOUND', 'User email not found');
    const tokens: TokenSet = {
      accessToken: idToken.accessToken ?? null,
      refreshToken: idToken.refreshToken ?? null,
      idToken: idToken.token,
      accessTokenExpiresAt: typeof idToken.expiresAt === 'number' ? new Date(idToken.expiresAt) : null,
      refreshTokenExpiresAt: null,
      scopes: [],
    };
    return { found, profile, tokens };
  }

  return {
    registry,
    redirectUri,
    cliHandoff,
    accounts: createOAuthAccounts({ db, clock, box, registry, allowUnlinkingAll: config.oauth.allowUnlinkingAll }),

    /** link-social with an ID token: adds the identity to the signed-in user at once. */
    async linkWithIdToken(target: LinkTarget, input: { provider: string; idToken: IdTokenInput }): Promise<void> {
      const { found, profile, tokens } = await fromIdToken(input.provider, input.idToken);
      try {
        await linker.link(found.id, profile, tokens, target);
      } catch (error) {
        if (!(error instanceof OAuthFlowError)) throw error;
        if (error.code === 'account_already_linked_to_different_user')
          throw new DomainError(409, 'SOCIAL_ACCOUNT_ALREADY_LINKED', 'Social account already linked');
        if (error.code === 'email_does_not_match') {
          throw new DomainError(
            401,
            'LINKING_DIFFERENT_EMAILS_NOT_ALLOWED',
            'Account not linked - different emails not allowed',
          );
        }
        throw new DomainError(401, 'LINKING_NOT_ALLOWED', 'Account not linked - linking not allowed');
      }
    },

    /** Starts the redirect flow: stores the state and answers the provider's authorization URL. */
    async start(input: StartInput): Promise<{ url: string; state: string }> {
      const found = await provider(input.provider);
      const state = randomAlphanumeric(STATE_LENGTH);
      const codeVerifier = randomAlphanumeric(VERIFIER_LENGTH);
      const now = clock.now();
      const stored: StoredState = {
        providerId: found.id,
        codeVerifier: box.seal(codeVerifier, STATE_PREFIX + state),
        callbackURL: input.callbackURL || config.baseUrl,
        // The CLI learns of failures on its loopback too, with the state so it can tell them from strays.
        errorURL:
          input.cliChallenge && input.callbackURL
            ? withQuery(input.callbackURL, { state })
            : input.errorCallbackURL || null,
        newUserURL: input.newUserCallbackURL || null,
        requestSignUp: input.requestSignUp === true,
        link: input.link ?? null,
        ...(input.cliChallenge ? { cliChallenge: input.cliChallenge } : {}),
      };
      await verificationsRepository(db).insert({
        id: newAuthId(),
        identifier: stateIdentifier(state),
        value: JSON.stringify(stored),
        expiresAt: new Date(now.getTime() + STATE_TTL_MS),
        createdAt: now,
        updatedAt: now,
      });
      const url = registry.authorizationUrl(found, {
        state,
        codeVerifier,
        redirectUri: redirectUri(found.id),
        scopes: input.scopes,
        loginHint: input.loginHint,
      });
      return { url, state };
    },

    /** The provider's redirect back. Never throws for a flow failure: every failure is a redirect with `error`. */
    async callback(input: CallbackInput, meta: RequestMeta): Promise<CallbackOutcome> {
      const fail = (code: string, url = defaultErrorURL, description?: string): CallbackOutcome => ({
        location: withQuery(url, { error: code, error_description: description }),
        signedIn: null,
      });
      if (!input.state) return fail('state_not_found');
      const stored = await takeState(input.state, input.cookieState);
      if (stored === 'unknown') return fail('please_restart_the_process');
      if (stored === 'mismatch') return fail('state_mismatch');
      const errorURL = stored.errorURL ?? defaultErrorURL;
      if (input.error) return fail(input.error, errorURL, input.errorDescription);
      if (!input.code) return fail('no_code', errorURL);
      const found =
        stored.providerId === input.providerId ? await registry.get(input.providerId).catch(() => null) : null;
      if (!found) return fail('oauth_provider_not_found', errorURL);
      try {
        const tokens = await registry
          .exchangeCode(found, {
            code: input.code,
            codeVerifier: stored.codeVerifier,
            redirectUri: redirectUri(found.id),
            deviceId: input.deviceId,
          })
          .catch((error: unknown) => {
            throw error instanceof OAuthFlowError ? error : new OAuthFlowError('invalid_code');
          });
        const { profile } = await registry.fetchProfile(found, tokens);
        if (stored.link) {
          await linker.link(found.id, profile, tokens, stored.link);
          return { location: stored.callbackURL, signedIn: null };
        }
        const signedIn = await linker.signIn(found.id, profile, tokens, { requestSignUp: stored.requestSignUp }, meta);
        if (stored.cliChallenge) {
          const code = await cliHandoff.issue(signedIn, stored.cliChallenge);
          return {
            location: withQuery(stored.callbackURL, { code, state: input.state }),
            signedIn: null,
            handedOff: true,
          };
        }
        const location = signedIn.isNewUser && stored.newUserURL ? stored.newUserURL : stored.callbackURL;
        return { location, signedIn };
      } catch (error) {
        if (error instanceof OAuthFlowError) return fail(error.code, errorURL);
        throw error;
      }
    },

    /** Sign-in with an ID token the client got from the provider itself (native apps, Google One Tap). */
    async signInWithIdToken(
      input: { provider: string; requestSignUp?: boolean; idToken: IdTokenInput },
      meta: RequestMeta,
    ): Promise<SocialSignIn> {
      const { found, profile, tokens } = await fromIdToken(input.provider, input.idToken);
      try {
        return await linker.signIn(found.id, profile, tokens, { requestSignUp: input.requestSignUp }, meta);
      } catch (error) {
        if (!(error instanceof OAuthFlowError)) throw error;
        if (error.code === 'unable_to_create_session') throw authError(401, 'FAILED_TO_CREATE_SESSION');
        if (error.code === 'unable_to_create_user') throw authError(401, 'FAILED_TO_CREATE_USER');
        const message =
          error.code === 'signup_disabled' ? 'Signup disabled' : 'Account not linked - linking not allowed';
        throw new DomainError(401, 'OAUTH_LINK_ERROR', message);
      }
    },
  };
}
