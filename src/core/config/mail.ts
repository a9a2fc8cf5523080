import { ConfigError } from './errors.js';

/** Where mail goes: `outbox` keeps it in the database only; `smtp(s)://` and `http(s)://` deliver it. */
export interface MailConfig {
  /** `outbox`, `smtp://user:pass@host:port`, `smtps://…`, or an `http(s)://` relay that takes a JSON message. */
  url: string;
  /** The From header of every message. */
  from: string;
}

export type DeleteUserMode = 'off' | 'on' | 'verify';

/** The e-mail flows of /api/auth, with Better Auth's defaults unless noted. */
export interface EmailFlowsConfig {
  /** Sign-in refuses unverified addresses (403 EMAIL_NOT_VERIFIED) and re-sends the verification mail. */
  requireEmailVerification: boolean;
  /** Mail a verification link on sign-up; Better Auth's default follows requireEmailVerification. */
  sendVerificationOnSignUp: boolean;
  /** Verifying an address signs its owner in (session cookie on the verify-email answer). */
  autoSignInAfterVerification: boolean;
  /** POST /change-email. On by default in Till, unlike Better Auth: mail always works, through the outbox. */
  changeEmail: boolean;
  /** POST /delete-user: off (404, as Better Auth), on, or on with a confirmation link by mail. */
  deleteUser: DeleteUserMode;
  /** A password reset ends every session of the user. */
  revokeSessionsOnPasswordReset: boolean;
}

export const DEFAULT_MAIL: MailConfig = { url: 'outbox', from: 'Till <till@localhost>' };

export const DEFAULT_EMAIL_FLOWS: EmailFlowsConfig = {
  requireEmailVerification: false,
  sendVerificationOnSignUp: false,
  autoSignInAfterVerification: false,
  changeEmail: true,
  deleteUser: 'off',
  revokeSessionsOnPasswordReset: false,
};

function flag(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  const lower = value.toLowerCase();
  if (['1', 'on', 'true', 'yes'].includes(lower)) return true;
  if (['0', 'off', 'false', 'no'].includes(lower)) return false;
  throw new ConfigError(`${name} must be on or off (got "${value}")`);
}

export function checkMailUrl(url: string): string {
  if (url === 'outbox') return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`TILL_MAIL_URL must be outbox, smtp://, smtps://, http:// or https:// (got "${url}")`);
  }
  if (!['smtp:', 'smtps:', 'http:', 'https:'].includes(parsed.protocol)) {
    throw new ConfigError(
      `TILL_MAIL_URL must be outbox, smtp://, smtps://, http:// or https:// (got a ${parsed.protocol} URL)`,
    );
  }
  return url;
}

export function loadMailConfig(env: NodeJS.ProcessEnv): MailConfig {
  return {
    url: checkMailUrl(env.TILL_MAIL_URL || DEFAULT_MAIL.url),
    from: env.TILL_MAIL_FROM || DEFAULT_MAIL.from,
  };
}

export function loadEmailFlows(env: NodeJS.ProcessEnv): EmailFlowsConfig {
  const requireEmailVerification = flag('TILL_REQUIRE_EMAIL_VERIFICATION', env.TILL_REQUIRE_EMAIL_VERIFICATION, false);
  const deleteUser = (env.TILL_DELETE_USER || 'off').toLowerCase();
  if (deleteUser !== 'off' && deleteUser !== 'on' && deleteUser !== 'verify') {
    throw new ConfigError(`TILL_DELETE_USER must be off, on or verify (got "${env.TILL_DELETE_USER}")`);
  }
  return {
    requireEmailVerification,
    sendVerificationOnSignUp: flag(
      'TILL_SEND_VERIFICATION_ON_SIGN_UP',
      env.TILL_SEND_VERIFICATION_ON_SIGN_UP,
      requireEmailVerification,
    ),
    autoSignInAfterVerification: flag(
      'TILL_AUTO_SIGN_IN_AFTER_VERIFICATION',
      env.TILL_AUTO_SIGN_IN_AFTER_VERIFICATION,
      false,
    ),
    changeEmail: flag('TILL_CHANGE_EMAIL', env.TILL_CHANGE_EMAIL, true),
    deleteUser,
    revokeSessionsOnPasswordReset: flag(
      'TILL_REVOKE_SESSIONS_ON_PASSWORD_RESET',
      env.TILL_REVOKE_SESSIONS_ON_PASSWORD_RESET,
      false,
    ),
  };
}
