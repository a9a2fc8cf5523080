import type { Db } from '../database/index.js';
import { DomainError } from '../kernel/errors.js';
import type { EmailFlowsConfig } from '../config/index.js';
import type { AccountMail } from './account-mail.js';
import { lowercaseEmail } from './email.js';
import type { EmailTokens } from './email-tokens.js';
import { authError } from './errors.js';
import { usersRepository } from './repository.js';
import type { AuthActor } from './sessions.js';

export interface ChangeEmailDeps {
  db: Db;
  flows: Pick<EmailFlowsConfig, 'changeEmail'>;
  tokens: EmailTokens;
  accountMail: AccountMail;
}

export type ChangeEmailService = ReturnType<typeof createChangeEmailService>;

/**
 * Better Auth's change of address with `sendChangeEmailConfirmation`: a verified address must first approve the
 * change (a link to the current mailbox), then the new address must be proven (a link to the new mailbox); an
 * unverified address skips the approval. The account keeps its current address, and that address's verified
 * state, until the new one is proven; it then arrives verified. Nothing is changed before that, so a mistyped or
 * hostile new address never locks anyone out.
 */
export function createChangeEmailService(deps: ChangeEmailDeps) {
  const { db, tokens, accountMail } = deps;

  return {
    async request(actor: AuthActor, input: { newEmail: string; callbackURL?: string }): Promise<void> {
      if (!deps.flows.changeEmail) throw authError(400, 'CHANGE_EMAIL_DISABLED');
      const newEmail = lowercaseEmail(input.newEmail);
      if (newEmail === actor.user.email) throw new DomainError(400, undefined, 'Email is the same');
      // Another user's mailbox under another spelling is taken too; one's own (a.b@ to ab@ at Gmail) is not.
      if (await usersRepository(db).findHolder(newEmail, actor.user.id)) {
        // Taken: the same answer as a free address, after signing the token a real request would sign.
        await tokens.sign({ email: actor.user.email, updateTo: newEmail, userId: actor.user.id });
        return;
      }
      if (actor.user.emailVerified)
        await accountMail.sendChangeConfirmation(db, actor.user, newEmail, input.callbackURL);
      else await accountMail.sendChangeVerification(db, actor.user, newEmail, input.callbackURL);
    },
  };
}
