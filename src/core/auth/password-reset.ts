import type { Clock } from '../kernel/clock.js';
import { HOUR } from '../kernel/clock.js';
import type { TillConfig } from '../config/index.js';
import { sha256Hex } from '../kernel/crypto.js';
import type { Db } from '../database/index.js';
import { transaction } from '../database/index.js';
import { newAuthId, randomAlphanumeric } from '../kernel/ids.js';
import type { EmailFlowsConfig } from '../config/index.js';
import type { AccountMail } from './account-mail.js';
import { normalizeEmail } from './email.js';
import { authError } from './errors.js';
import type { PasswordHasher } from './password-hasher.js';
import { checkPasswordLength, credentialAccount } from './password-rules.js';
import {
  accountsRepository,
  signInFailuresRepository,
  usersRepository,
  verificationsRepository,
} from './repository.js';
import type { SessionService } from './sessions.js';

/** Better Auth's reset token: 24 random characters, valid one hour, usable once. */
export const RESET_TOKEN_LENGTH = 24;
export const RESET_TOKEN_TTL_MS = HOUR;

export const RESET_REQUESTED_MESSAGE = 'If this email exists in our system, check your email for the reset link';

/** Only a digest of the token is stored, so a copy of the database resets nobody's password. */
export function resetIdentifier(token: string): string {
  return `reset-password:${sha256Hex(token)}`;
}

export interface PasswordResetDeps {
  db: Db;
  clock: Clock;
  config: Pick<TillConfig, 'password'>;
  flows: Pick<EmailFlowsConfig, 'revokeSessionsOnPasswordReset'>;
  hasher: PasswordHasher;
  sessions: SessionService;
  accountMail: AccountMail;
}

export type PasswordResetService = ReturnType<typeof createPasswordResetService>;

export function createPasswordResetService(deps: PasswordResetDeps) {
  const { db, clock, hasher, sessions, accountMail } = deps;

  return {
    /**
     * Mails a reset token to a known address. An unknown one gets the same answer after the same work: a token is
     * drawn and looked up, as a real one would be written; nothing is stored and nothing is sent.
     */
    async request(input: { email: string; redirectTo?: string }): Promise<void> {
      const email = normalizeEmail(input.email);
      const user = await usersRepository(db).findByEmail(email);
      const token = randomAlphanumeric(RESET_TOKEN_LENGTH);
      const identifier = resetIdentifier(token);
      if (!user) {
        await verificationsRepository(db).findActive(identifier, clock.now());
        return;
      }
      const now = clock.now();
      await transaction(db, async (trx) => {
        await verificationsRepository(trx).insert({
          id: newAuthId(),
          identifier,
          value: user.id,
          expiresAt: new Date(now.getTime() + RESET_TOKEN_TTL_MS),
          createdAt: now,
          updatedAt: now,
        });
        await accountMail.sendPasswordReset(trx, user, token, input.redirectTo);
      });
    },

    /** Whether a token would still reset a password (GET /reset-password/:token redirects on this). */
    async isValid(token: string): Promise<boolean> {
      return (await verificationsRepository(db).findActive(resetIdentifier(token), clock.now())) !== null;
    },

    async reset(input: { token?: string; newPassword: string }): Promise<void> {
      if (!input.token) throw authError(400, 'INVALID_TOKEN');
      checkPasswordLength(deps.config, input.newPassword);
      const verification = await verificationsRepository(db).findActive(resetIdentifier(input.token), clock.now());
      if (!verification) throw authError(400, 'INVALID_TOKEN');
      const user = await usersRepository(db).findById(verification.value);
      if (!user) throw authError(400, 'USER_NOT_FOUND');
      const passwordHash = await hasher.hash(input.newPassword);
      await transaction(db, async (trx) => {
        const now = clock.now();
        // Of two resets racing with one token, exactly one consumes it; the other rolls back.
        if (!(await verificationsRepository(trx).consume({ id: verification.id }, now)))
          throw authError(400, 'INVALID_TOKEN');
        if (deps.flows.revokeSessionsOnPasswordReset) await sessions.revokeAll(user.id, trx);
        const accounts = accountsRepository(trx);
        const account = await accounts.findCredential(user.id);
        // A user who signed up through a social provider gets a password here, as in Better Auth.
        if (account) await accounts.setPassword(account.id, passwordHash, now);
        else await accounts.insert(credentialAccount(user.id, passwordHash, now));
        // Whoever reads the mailbox has proven themselves: earlier failed sign-ins no longer hold the account back.
        await signInFailuresRepository(trx).clear(user.email);
      });
    },
  };
}
