import type { Db } from '../database/index.js';
import type { MailService } from '../mail/service.js';
import {
  changeEmailConfirmationMail,
  changeEmailVerificationMail,
  deleteAccountMail,
  resetPasswordMail,
  verifyEmailMail,
} from '../mail/templates.js';
import type { EmailTokens } from './email-tokens.js';
import type { User } from './repository.js';

/** Where Better Auth's routes live; mail links point there, on TILL_BASE_URL. */
export const AUTH_PATH = '/api/auth';

export type MailKind =
  'verify-email' | 'change-email-confirmation' | 'change-email-verification' | 'reset-password' | 'delete-account';

type Recipient = Pick<User, 'id' | 'email' | 'name'>;

/**
 * Builds the account mails (links from the base URL) and writes them with the mail service. Every function takes
 * the Db of the change that causes the mail, so the mail commits with it.
 *
 * A link only carries `callbackURL` when the client gave one. Better Auth defaults it to "/", which on Till's own
 * origin is no page at all; without it, the link answers with JSON that at least says what happened.
 */
export function createAccountMail(deps: { baseUrl: string; mail: MailService; tokens: EmailTokens }) {
  const { mail, tokens } = deps;

  function link(path: string, params: Record<string, string | undefined>): string {
    const query = Object.entries(params)
      .filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '')
      .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
      .join('&');
    return `${deps.baseUrl}${AUTH_PATH}${path}${query ? `?${query}` : ''}`;
  }

  return {
    async sendVerification(db: Db, user: Recipient, callbackURL?: string): Promise<void> {
      const token = await tokens.sign({ email: user.email, userId: user.id });
      const url = link('/verify-email', { token, callbackURL });
      await mail.enqueue(db, {
        kind: 'verify-email',
        to: user.email,
        userId: user.id,
        content: verifyEmailMail({ name: user.name, url }),
      });
    },

    /** To the current (verified) address: approving it sends the verification to the new one. */
    async sendChangeConfirmation(db: Db, user: Recipient, newEmail: string, callbackURL?: string): Promise<void> {
      const token = await tokens.sign({
        email: user.email,
        updateTo: newEmail,
        userId: user.id,
        requestType: 'change-email-confirmation',
      });
      const url = link('/verify-email', { token, callbackURL });
      await mail.enqueue(db, {
        kind: 'change-email-confirmation',
        to: user.email,
        userId: user.id,
        content: changeEmailConfirmationMail({ name: user.name, newEmail, url }),
      });
    },

    /** To the new address: opening it moves the account there. */
    async sendChangeVerification(db: Db, user: Recipient, newEmail: string, callbackURL?: string): Promise<void> {
      const token = await tokens.sign({
        email: user.email,
        updateTo: newEmail,
        userId: user.id,
        requestType: 'change-email-verification',
      });
      const url = link('/verify-email', { token, callbackURL });
      await mail.enqueue(db, {
        kind: 'change-email-verification',
        to: newEmail,
        userId: user.id,
        content: changeEmailVerificationMail({ name: user.name, url }),
      });
    },

    async sendPasswordReset(db: Db, user: Recipient, token: string, redirectTo?: string): Promise<void> {
      const url = redirectTo ? link(`/reset-password/${token}`, { callbackURL: redirectTo }) : null;
      await mail.enqueue(db, {
        kind: 'reset-password',
        to: user.email,
        userId: user.id,
        content: resetPasswordMail({ name: user.name, url, token }),
      });
    },

    async sendDeleteConfirmation(db: Db, user: Recipient, token: string, callbackURL?: string): Promise<void> {
      const url = link('/delete-user/callback', { token, callbackURL });
      await mail.enqueue(db, {
        kind: 'delete-account',
        to: user.email,
        userId: user.id,
        content: deleteAccountMail({ name: user.name, url, token }),
      });
    },
  };
}

export type AccountMail = ReturnType<typeof createAccountMail>;
