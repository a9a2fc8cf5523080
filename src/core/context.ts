import { createAccessTokenService, type AccessTokenService } from './access-tokens/service.js';
import { createApiKeyService, type ApiKeyService } from './api-keys/service.js';
import { createAuthService, type AuthService } from './auth/service.js';
import { createEmailFlows, type EmailFlows } from './auth/email-flows.js';
import { createPasswordHasher, type PasswordHasher } from './auth/password-hasher.js';
import { createSessionService, type SessionService } from './auth/sessions.js';
import type { Clock } from './kernel/clock.js';
import { systemClock } from './kernel/clock.js';
import type { TillConfig } from './kernel/config.js';
import { InvalidationBus } from './kernel/invalidation.js';
import type { Db } from './kernel/db.js';
import { idempotencyStore, type IdempotencyStore } from './kernel/idempotency.js';
import { createSecretBox, type SecretBox } from './kernel/secret-box.js';
import { createJwtService, type JwtService } from './jwt/service.js';
import { createMailService, type MailService } from './mail/service.js';
import { createOAuthService, type OAuthService } from './oauth/service.js';
import { createOrganizationService, type OrganizationService } from './organizations/service.js';

/** Everything a request handler or worker needs, built once per daemon. Tests build it with their own clock. */
export interface CoreContext {
  config: TillConfig;
  db: Db;
  clock: Clock;
  hasher: PasswordHasher;
  /** Tells other daemons on the same PostgreSQL what changed; started by the daemon, not by createCore. */
  bus: InvalidationBus;
  sessions: SessionService;
  auth: AuthService;
  apiKeys: ApiKeyService;
  /** Encrypts secrets kept in the database (private keys, OAuth tokens, webhook secrets). */
  secretBox: SecretBox;
  jwt: JwtService;
  /** Outgoing mail: written with the change that causes it, delivered by the daemon's mail worker. */
  mail: MailService;
  /** Verification, password reset, change of address and deletion, all through mail. */
  emailFlows: EmailFlows;
  /** Social sign-in: provider catalogue, OAuth state, callbacks, ID tokens. */
  oauth: OAuthService;
  /** Better Auth's organization plugin: organizations, members and their roles. */
  organizations: OrganizationService;
  /** /v1: organization access tokens (Polar's OATs). */
  accessTokens: AccessTokenService;
  /** /v1: Idempotency-Key claims and stored answers. */
  idempotency: IdempotencyStore;
}

export function createCore(options: { config: TillConfig; db: Db; clock?: Clock; hasher?: PasswordHasher }): CoreContext {
  const { config, db } = options;
  const clock = options.clock ?? systemClock;
  const hasher = options.hasher ?? createPasswordHasher({ cost: config.bcryptCost, workers: config.hashWorkers });
  // The bus's handlers reach the caches through `sessions` and `apiKeys`, which exist by the time any arrive.
  let sessions: SessionService;
  let apiKeys: ApiKeyService;
  const bus = new InvalidationBus(config.databaseUrl, {
    onKey: (key) => {
      sessions.forgetKey(key);
      apiKeys.forgetKey(key);
    },
    onReset: () => {
      sessions.clearCache();
      apiKeys.clearCache();
    },
  });
  sessions = createSessionService({ db, clock, session: config.session, bus });
  apiKeys = createApiKeyService({ db, clock, bus, session: config.session });
  const secretBox = createSecretBox(config.secret);
  const mail = createMailService({ db, clock, config: config.mail, box: secretBox });
  const emailFlows = createEmailFlows({ db, clock, config, hasher, sessions, mail });
  const auth = createAuthService({ db, clock, config, hasher, sessions, emailVerification: emailFlows.verificationHooks });
  const jwt = createJwtService({ db, clock, config, box: secretBox });
  const oauth = createOAuthService({ db, clock, config, box: secretBox, sessions });
  const organizations = createOrganizationService({ db, clock, config: config.organizations, sessions, mail, baseUrl: config.baseUrl });
  const accessTokens = createAccessTokenService({ db, clock });
  const idempotency = idempotencyStore(db, clock);
  return { config, db, clock, hasher, bus, sessions, auth, apiKeys, secretBox, jwt, mail, emailFlows, oauth, organizations, accessTokens, idempotency };
}
