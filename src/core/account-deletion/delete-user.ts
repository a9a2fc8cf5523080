import { apiKeysRepository } from '../api-keys/repository.js';
import type { Clock } from '../kernel/clock.js';
import { DAY } from '../kernel/clock.js';
import type { TillConfig } from '../config/index.js';
import { sha256Hex } from '../kernel/crypto.js';
import type { Db } from '../database/index.js';
import { transaction } from '../database/index.js';
import { DomainError, NotFoundError } from '../kernel/errors.js';
import { newAuthId, randomDigitsAndLowercase } from '../kernel/ids.js';
import type { EmailFlowsConfig } from '../config/index.js';
import type { AccountMail } from '../auth/account-mail.js';
import { assertNotLastOwner } from '../organizations/members.js';
import { authError } from '../auth/errors.js';
import type { PasswordHasher } from '../auth/password-hasher.js';
import { accountsRepository, usersRepository, verificationsRepository } from '../auth/repository.js';
import type { AuthActor, SessionService } from '../auth/sessions.js';

/** Better Auth's deletion token: 32 characters of [0-9a-z], valid 24 hours. */
export const DELETE_TOKEN_LENGTH = 32;
export const DELETE_TOKEN_TTL_MS = DAY;

export function deleteIdentifier(token: string): string {
  return `delete-account-${sha256Hex(token)}`;
}

export interface DeleteUserDeps {
  db: Db;
  clock: Clock;
  config: Pick<TillConfig, 'password'>;
  flows: Pick<EmailFlowsConfig, 'deleteUser'>;
  hasher: PasswordHasher;
  sessions: SessionService;
  accountMail: AccountMail;
}

export type DeleteUserOutcome = 'deleted' | 'verification-sent';

export type DeleteUserService = ReturnType<typeof createDeleteUserService>;

export function createDeleteUserService(deps: DeleteUserDeps) {
  const { db, clock, hasher, sessions, accountMail } = deps;

  function assertEnabled(): void {
    // Off, the routes answer like unknown paths, as Better Auth's do when deleteUser is not enabled.
    if (deps.flows.deleteUser === 'off') throw new NotFoundError();
  }

  /**
   * Deletes the user and their API keys; sessions, accounts and mails follow through the foreign keys. Going through userChanging
   * makes every daemon drop the user's cached sessions the moment the deletion commits.
   */
  async function deleteNow(userId: string, trx?: Db): Promise<void> {
    await sessions.userChanging(
      userId,
      async (inner) => {
        await assertNotLastOwner(inner, userId);
        await verificationsRepository(inner).deleteForUser(userId, ['reset-password:', 'delete-account-']);
        await apiKeysRepository(inner).deleteOwnedByUser(userId);
        await usersRepository(inner).delete(userId);
      },
      trx,
    );
  }

  /** Uses up a deletion token issued to this user and deletes them; anyone else's token is 404 INVALID_TOKEN. */
  async function deleteWithToken(userId: string, token: string): Promise<void> {
    await transaction(db, async (trx) => {
      const consumed = await verificationsRepository(trx).consume(
        { identifier: deleteIdentifier(token), value: userId },
        clock.now(),
      );
      if (!consumed) throw authError(404, 'INVALID_TOKEN');
      await deleteNow(userId, trx);
    });
  }

  return {
    assertEnabled,

    /**
     * POST /delete-user. A password, when given, must be right. A token completes a mailed request. In `verify`
     * mode a request mails a confirmation link; otherwise the user is deleted at once, which without a password
     * needs a fresh session.
     */
    async request(
      actor: AuthActor,
      input: { password?: string; token?: string; callbackURL?: string },
    ): Promise<DeleteUserOutcome> {
      assertEnabled();
      if (input.password) {
        if (input.password.length > deps.config.password.maxLength) throw authError(400, 'PASSWORD_TOO_LONG');
        const account = await accountsRepository(db).findCredential(actor.user.id);
        if (!account?.password) throw authError(400, 'CREDENTIAL_ACCOUNT_NOT_FOUND');
        if (!(await hasher.verify(input.password, account.password))) throw authError(400, 'INVALID_PASSWORD');
      }
      if (input.token) {
        await deleteWithToken(actor.user.id, input.token);
        return 'deleted';
      }
      if (deps.flows.deleteUser === 'verify') {
        const token = randomDigitsAndLowercase(DELETE_TOKEN_LENGTH);
        const now = clock.now();
        await transaction(db, async (trx) => {
          await verificationsRepository(trx).insert({
            id: newAuthId(),
            identifier: deleteIdentifier(token),
            value: actor.user.id,
            expiresAt: new Date(now.getTime() + DELETE_TOKEN_TTL_MS),
            createdAt: now,
            updatedAt: now,
          });
          await accountMail.sendDeleteConfirmation(trx, actor.user, token, input.callbackURL);
        });
        return 'verification-sent';
      }
      if (!input.password && !sessions.isFresh(actor.session)) throw authError(400, 'SESSION_EXPIRED');
      await deleteNow(actor.user.id);
      return 'deleted';
    },

    /** GET /delete-user/callback: the mailed link, opened with the user's session. */
    async complete(actor: AuthActor | null, token: string): Promise<void> {
      // Better Auth's callback, unlike the POST route, says why it is not there.
      if (deps.flows.deleteUser === 'off') throw new DomainError(404, 'NOT_FOUND', 'Not found');
      if (!actor) throw authError(404, 'FAILED_TO_GET_USER_INFO');
      await deleteWithToken(actor.user.id, token);
    },
  };
}
