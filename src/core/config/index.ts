import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError } from './errors.js';
import { checkMailUrl, loadEmailFlows, loadMailConfig, type EmailFlowsConfig, type MailConfig } from './mail.js';
import { loadOAuthConfig, type OAuthConfig } from './oauth.js';
import { loadBenefitPlatformsConfig, type BenefitPlatformsConfig } from './benefit-platforms.js';
import { loadMetricsConfig, type MetricsConfig } from './metrics.js';

// The one entry point of configuration: mail.ts and oauth.ts are reached through here.
export { ConfigError } from './errors.js';
export {
  DEFAULT_EMAIL_FLOWS,
  DEFAULT_MAIL,
  type DeleteUserMode,
  type EmailFlowsConfig,
  type MailConfig,
} from './mail.js';
export type { MetricsConfig } from './metrics.js';
export {
  loadBenefitPlatformsConfig,
  type BenefitPlatformsConfig,
  type DiscordPlatformConfig,
  type GitHubCredentials,
  type GitHubPlatformConfig,
  type PlatformOAuthClient,
} from './benefit-platforms.js';
export {
  CATALOGUED_PROVIDER_IDS,
  DEFAULT_OAUTH,
  loadOAuthConfig,
  type OAuthConfig,
  type OAuthProviderSettings,
} from './oauth.js';

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

export interface SessionConfig {
  /** Seconds a session lives (and the cookie's Max-Age). */
  expiresIn: number;
  /** Seconds after which get-session slides the expiry forward. */
  updateAge: number;
  /** Seconds after creation during which a session counts as fresh; 0 turns the check off. */
  freshAge: number;
  cookieCache: { enabled: boolean; maxAge: number };
}

export interface TillConfig {
  dataDir: string;
  databaseUrl: string;
  host: string;
  port: number;
  baseUrl: string;
  secret: string;
  trustedOrigins: string[];
  logLevel: LogLevel;
  rateLimit: boolean;
  /** Trust X-Forwarded-For for the client address (only behind a proxy that sets it). */
  trustProxy: boolean;
  bcryptCost: number;
  /** Worker threads that hash passwords; 0 hashes on the event loop (tests only). */
  hashWorkers: number;
  cookiePrefix: string;
  session: SessionConfig;
  password: { minLength: number; maxLength: number };
  /** Largest request body accepted, in bytes. */
  maxBodyBytes: number;
  /** Failed sign-ins allowed per account per hour, across all addresses (ASVS 2.2.1). */
  accountFailureLimit: number;
  jwt: JwtConfig;
  /** TILL_MAIL_URL and TILL_MAIL_FROM (mail-config.ts). */
  mail: MailConfig;
  /** E-mail verification, password reset, change-email and delete-user switches (mail-config.ts). */
  emailFlows: EmailFlowsConfig;
  /** Social sign-in providers and linking rules (oauth-config.ts). */
  oauth: OAuthConfig;
  /** Organization plugin switches: TILL_ORG_ALLOW_CREATE (on), TILL_ORG_LIMIT (organizations a user may create; 0 = no limit). */
  organizations: OrganizationsConfig;
  /** Uploaded files (/v1/files): TILL_FILES_DIR (default <data dir>/files) and TILL_FILES_MAX_BYTES (default 1 GiB). */
  files: FilesConfig;
  /** Webhook delivery: TILL_WEBHOOK_ALLOW_PRIVATE_URLS (off) and TILL_WEBHOOK_TIMEOUT_MS (10 s, Polar's). */
  webhooks: WebhooksConfig;
  /**
   * TILL_RECONCILE_LEASE_MS (10 min): how long a checkout may stay `confirmed` or a refund `pending` (its processor
   * call in flight) before the reconciler settles it against the processor's record. Longer than any processor call.
   */
  reconcileLeaseMs: number;
  /**
   * TILL_CLOCK: `system` (the default, real time) or `simulated` (time is stored in the database, moves only through
   * `POST /api/admin/clock`, and is shared by every daemon on it; for testing integrations, never for real sales).
   */
  clock: ClockMode;
  /** TILL_METRICS (metrics.ts): where GET /metrics answers. Optional so hand-built configs get the default, admin. */
  metrics?: MetricsConfig;
  /** GitHub and Discord for their benefits (benefit-platforms.ts). Optional so hand-built configs get the default. */
  benefitPlatforms?: BenefitPlatformsConfig;
}

export type ClockMode = 'system' | 'simulated';

export interface WebhooksConfig {
  /** Endpoints may point at loopback, private and link-local addresses (development and tests only). */
  allowPrivateUrls: boolean;
  /** How long one attempt may take before it counts as failed. */
  timeoutMs: number;
}

export interface FilesConfig {
  /** Where the bytes live; several daemons on one PostgreSQL must share it (a network volume). */
  dir: string;
  /** Largest file accepted, in bytes. */
  maxBytes: number;
}

export interface OrganizationsConfig {
  allowCreate: boolean;
  /** Organizations a user may belong to before create is refused; null is no limit (Better Auth's default). */
  limit: number | null;
  /** TILL_ORG_TEAMS: team routes, and a default team named after each new organization. */
  teams: boolean;
  /** TILL_ORG_ALLOW_REMOVING_ALL_TEAMS: remove-team may remove an organization's last team. */
  allowRemovingAllTeams: boolean;
  /**
   * TILL_ORG_REQUIRE_EMAIL_VERIFICATION_ON_INVITATION: accept, reject and get-invitation need a verified e-mail.
   * Optional so hand-built configs keep Better Auth's default (off for opaque ids).
   */
  requireEmailVerificationOnInvitation?: boolean;
  /** TILL_ORG_MAXIMUM_MEMBERS_PER_TEAM: Better Auth's teams.maximumMembersPerTeam; unset or 0 is no limit. */
  maximumMembersPerTeam?: number | null;
  /**
   * TILL_ORG_MEMBERSHIP_LIMIT: Better Auth's membershipLimit, members an organization may have (its owners count)
   * and the most members one read returns. Optional so hand-built configs keep Better Auth's default, 100.
   */
  membershipLimit?: number;
}

/** Signing algorithms offered for /api/auth/token; Better Auth's default (EdDSA) first. */
export const JWT_ALGORITHMS = ['EdDSA', 'ES256', 'RS256', 'PS256'] as const;
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];

export interface JwtConfig {
  /** Algorithm of newly created signing keys. */
  alg: JwtAlgorithm;
  /** Modulus length of new RSA keys (RS256, PS256); the spec refuses anything under 2048. */
  rsaBits: number;
  /** Seconds a token lives; also how long a retired key stays in the JWKS, so its last tokens still verify. */
  expiresIn: number;
  /** Seconds a key signs before a new one replaces it; 0 keeps the first key for ever. */
  rotationInterval: number;
}

export const DEFAULT_JWT: JwtConfig = {
  alg: 'EdDSA',
  rsaBits: 2048,
  expiresIn: 15 * 60,
  rotationInterval: 30 * 24 * 3600,
};

export const DEFAULT_SESSION: SessionConfig = {
  expiresIn: 7 * 24 * 3600,
  updateAge: 24 * 3600,
  freshAge: 24 * 3600,
  cookieCache: { enabled: false, maxAge: 60 },
};

export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TILL_DATA_DIR) return resolve(env.TILL_DATA_DIR);
  const base = env.XDG_DATA_HOME ? env.XDG_DATA_HOME : join(homedir(), '.local', 'share');
  return join(base, 'till');
}

function flag(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  return !['0', 'off', 'false', 'no'].includes(value.toLowerCase());
}

function integer(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max} (got "${value}")`);
  }
  return parsed;
}

/** Checked for the environment and for overrides alike, so no code path creates a short RSA key. */
function checkJwt(jwt: JwtConfig): JwtConfig {
  if (!(JWT_ALGORITHMS as readonly string[]).includes(jwt.alg))
    throw new ConfigError(`TILL_JWT_ALG must be one of ${JWT_ALGORITHMS.join(', ')} (got "${jwt.alg}")`);
  if (!Number.isInteger(jwt.rsaBits) || jwt.rsaBits < 2048 || jwt.rsaBits > 16384) {
    throw new ConfigError(
      `TILL_JWT_RSA_BITS must be an integer from 2048 to 16384: RSA keys under 2048 bits are refused (got ${jwt.rsaBits})`,
    );
  }
  if (!Number.isInteger(jwt.expiresIn) || jwt.expiresIn < 1)
    throw new ConfigError('TILL_JWT_EXPIRES_IN must be a positive number of seconds');
  if (!Number.isInteger(jwt.rotationInterval) || jwt.rotationInterval < 0)
    throw new ConfigError('TILL_JWT_ROTATION_INTERVAL must be 0 or a positive number of seconds');
  return jwt;
}

function loadJwt(env: NodeJS.ProcessEnv): JwtConfig {
  const rsaBits =
    env.TILL_JWT_RSA_BITS === undefined || env.TILL_JWT_RSA_BITS === ''
      ? DEFAULT_JWT.rsaBits
      : Number(env.TILL_JWT_RSA_BITS);
  return {
    alg: (env.TILL_JWT_ALG || DEFAULT_JWT.alg) as JwtAlgorithm,
    rsaBits,
    expiresIn: integer('TILL_JWT_EXPIRES_IN', env.TILL_JWT_EXPIRES_IN, DEFAULT_JWT.expiresIn, 1, 365 * 24 * 3600),
    rotationInterval: integer(
      'TILL_JWT_ROTATION_INTERVAL',
      env.TILL_JWT_ROTATION_INTERVAL,
      DEFAULT_JWT.rotationInterval,
      0,
      10 * 365 * 24 * 3600,
    ),
  };
}

/**
 * The embedded setup keeps a generated secret beside its database so a fresh `till daemon run` needs no
 * configuration. A shared PostgreSQL serves several daemons, which must all sign with the same secret, so there
 * it has to be given.
 */
function loadSecret(env: NodeJS.ProcessEnv, dataDir: string, isPostgres: boolean): string {
  if (env.TILL_SECRET) {
    if (env.TILL_SECRET.length < 32) throw new ConfigError('TILL_SECRET must be at least 32 characters');
    return env.TILL_SECRET;
  }
  if (isPostgres) throw new ConfigError('TILL_SECRET is required when TILL_DATABASE_URL points at PostgreSQL');
  const file = join(dataDir, 'secret');
  if (existsSync(file)) {
    const stored = readFileSync(file, 'utf8').trim();
    if (stored.length < 32)
      throw new ConfigError(
        `${file} holds a secret shorter than 32 characters; remove it to have a new one generated, or set TILL_SECRET`,
      );
    return stored;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return secret;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<TillConfig> = {}): TillConfig {
  const dataDir = overrides.dataDir ?? defaultDataDir(env);
  const databaseUrl = overrides.databaseUrl ?? env.TILL_DATABASE_URL ?? `sqlite:${join(dataDir, 'till.db')}`;
  const isPostgres = /^postgres(ql)?:/.test(databaseUrl);
  const host = overrides.host ?? env.TILL_HOST ?? '127.0.0.1';
  const port = overrides.port ?? integer('TILL_PORT', env.TILL_PORT, 4100, 0, 65535);
  const baseUrl = (
    overrides.baseUrl ??
    env.TILL_BASE_URL ??
    `http://${host.includes(':') ? `[${host}]` : host}:${port}`
  ).replace(/\/+$/, '');
  try {
    new URL(baseUrl);
  } catch {
    throw new ConfigError(`TILL_BASE_URL is not a URL: ${baseUrl}`);
  }
  const logLevel = (overrides.logLevel ?? env.TILL_LOG_LEVEL ?? 'error') as LogLevel;
  if (!['error', 'warn', 'info', 'debug'].includes(logLevel))
    throw new ConfigError(`TILL_LOG_LEVEL must be error, warn, info or debug`);
  const cacheEnabled = flag(env.TILL_SESSION_COOKIE_CACHE, false);
  return {
    dataDir,
    databaseUrl,
    host,
    port,
    baseUrl,
    secret: overrides.secret ?? loadSecret(env, dataDir, isPostgres),
    trustedOrigins:
      overrides.trustedOrigins ??
      (env.TILL_TRUSTED_ORIGINS ?? '')
        .split(',')
        .map((origin) => origin.trim())
        .filter(Boolean),
    logLevel,
    rateLimit: overrides.rateLimit ?? flag(env.TILL_RATE_LIMIT, true),
    trustProxy: overrides.trustProxy ?? flag(env.TILL_TRUST_PROXY, false),
    bcryptCost: overrides.bcryptCost ?? integer('TILL_BCRYPT_COST', env.TILL_BCRYPT_COST, 10, 4, 31),
    hashWorkers: overrides.hashWorkers ?? integer('TILL_HASH_WORKERS', env.TILL_HASH_WORKERS, 2, 0, 64),
    cookiePrefix: overrides.cookiePrefix ?? env.TILL_COOKIE_PREFIX ?? 'better-auth',
    session: overrides.session ?? {
      ...DEFAULT_SESSION,
      cookieCache: {
        enabled: cacheEnabled,
        maxAge: integer('TILL_SESSION_COOKIE_CACHE_MAX_AGE', env.TILL_SESSION_COOKIE_CACHE_MAX_AGE, 60, 1, 34560000),
      },
    },
    password: overrides.password ?? { minLength: 8, maxLength: 128 },
    maxBodyBytes: overrides.maxBodyBytes ?? 1024 * 1024,
    accountFailureLimit:
      overrides.accountFailureLimit ??
      integer('TILL_ACCOUNT_FAILURE_LIMIT', env.TILL_ACCOUNT_FAILURE_LIMIT, 100, 1, 1_000_000),
    jwt: checkJwt(overrides.jwt ?? loadJwt(env)),
    mail: overrides.mail ? { ...overrides.mail, url: checkMailUrl(overrides.mail.url) } : loadMailConfig(env),
    emailFlows: overrides.emailFlows ?? loadEmailFlows(env),
    oauth: overrides.oauth ?? loadOAuthConfig(env),
    organizations: overrides.organizations ?? {
      allowCreate: flag(env.TILL_ORG_ALLOW_CREATE, true),
      limit: integer('TILL_ORG_LIMIT', env.TILL_ORG_LIMIT, 0, 0, 1_000_000) || null,
      teams: flag(env.TILL_ORG_TEAMS, false),
      allowRemovingAllTeams: flag(env.TILL_ORG_ALLOW_REMOVING_ALL_TEAMS, false),
      requireEmailVerificationOnInvitation: flag(env.TILL_ORG_REQUIRE_EMAIL_VERIFICATION_ON_INVITATION, false),
      maximumMembersPerTeam:
        integer('TILL_ORG_MAXIMUM_MEMBERS_PER_TEAM', env.TILL_ORG_MAXIMUM_MEMBERS_PER_TEAM, 0, 0, 1_000_000) || null,
      membershipLimit: integer('TILL_ORG_MEMBERSHIP_LIMIT', env.TILL_ORG_MEMBERSHIP_LIMIT, 100, 1, 1_000_000),
    },
    files: overrides.files ?? {
      dir: env.TILL_FILES_DIR ? resolve(env.TILL_FILES_DIR) : join(dataDir, 'files'),
      maxBytes: integer('TILL_FILES_MAX_BYTES', env.TILL_FILES_MAX_BYTES, 1024 ** 3, 1, 1024 ** 4),
    },
    webhooks: overrides.webhooks ?? {
      allowPrivateUrls: flag(env.TILL_WEBHOOK_ALLOW_PRIVATE_URLS, false),
      timeoutMs: integer('TILL_WEBHOOK_TIMEOUT_MS', env.TILL_WEBHOOK_TIMEOUT_MS, 10_000, 1, 60_000),
    },
    reconcileLeaseMs:
      overrides.reconcileLeaseMs ??
      integer('TILL_RECONCILE_LEASE_MS', env.TILL_RECONCILE_LEASE_MS, 600_000, 0, 7 * 24 * 3_600_000),
    clock: overrides.clock ?? clockMode(env.TILL_CLOCK),
    metrics: overrides.metrics ?? loadMetricsConfig(env.TILL_METRICS),
    benefitPlatforms: overrides.benefitPlatforms ?? loadBenefitPlatformsConfig(env),
  };
}

function clockMode(value: string | undefined): ClockMode {
  if (value === undefined || value === '' || value === 'system') return 'system';
  if (value === 'simulated') return 'simulated';
  throw new ConfigError(`TILL_CLOCK must be system or simulated (got "${value}")`);
}
