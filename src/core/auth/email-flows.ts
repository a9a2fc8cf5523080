import type { Background } from '../kernel/background.js';
import type { Clock } from '../kernel/clock.js';
import type { TillConfig } from '../config/index.js';
import type { Db } from '../database/index.js';
import type { MailService } from '../mail/service.js';
import { createAccountMail, type AccountMail } from './account-mail.js';
import { createChangeEmailService } from './change-email.js';
import { createEmailTokens } from './email-tokens.js';
import type { PasswordHasher } from './password-hasher.js';
import { createPasswordResetService } from './password-reset.js';
import type { User } from './repository.js';
import type { EmailVerificationHooks } from './service.js';
import type { SessionService } from './sessions.js';
import { createVerificationService } from './verification.js';

export interface EmailFlowsDeps {
  db: Db;
  clock: Clock;
  config: Pick<TillConfig, 'baseUrl' | 'secret' | 'password' | 'emailFlows'>;
  hasher: PasswordHasher;
  sessions: SessionService;
  mail: MailService;
  background: Background;
}

/**
 * The account flows that work through mail: verification, password reset, change of address. Deletion spans
 * organizations and API keys too, so it lives above them (account-deletion/) and the core composes it in.
 */
export function createEmailFlows(deps: EmailFlowsDeps) {
  const { db, clock, config, hasher, sessions, mail, background } = deps;
  const flows = config.emailFlows;
  const tokens = createEmailTokens({ secret: config.secret, clock });
  const accountMail: AccountMail = createAccountMail({ baseUrl: config.baseUrl, mail, tokens });
  return {
    accountMail,
    /** What sign-up and sign-in need from these flows (auth service deps). */
    verificationHooks: {
      requireEmailVerification: flows.requireEmailVerification,
      sendOnSignUp: flows.sendVerificationOnSignUp,
      send: (trx: Db, user: User, callbackURL?: string) => accountMail.sendVerification(trx, user, callbackURL),
    } satisfies EmailVerificationHooks,
    verification: createVerificationService({ db, clock, flows, sessions, tokens, accountMail }),
    passwordReset: createPasswordResetService({ db, clock, config, flows, hasher, sessions, accountMail, background }),
    changeEmail: createChangeEmailService({ db, flows, tokens, accountMail }),
  };
}

export type EmailFlows = ReturnType<typeof createEmailFlows>;
