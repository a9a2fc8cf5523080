import type { Clock } from '../kernel/clock.js';
import type { Db } from '../database/index.js';
import { isUniqueViolation } from '../database/index.js';
import type { EmailFlowsConfig } from '../config/index.js';
import type { AccountMail } from './account-mail.js';
import { lowercaseEmail } from './email.js';
import type { EmailTokens } from './email-tokens.js';
import { authError } from './errors.js';
import type { Session, User } from './repository.js';
import { usersRepository } from './repository.js';
import type { AuthActor, RequestMeta, SessionService } from './sessions.js';

export interface VerificationDeps {
  db: Db;
  clock: Clock;
  flows: Pick<EmailFlowsConfig, 'autoSignInAfterVerification'>;
  sessions: SessionService;
  tokens: EmailTokens;
  accountMail: AccountMail;
}

/**
 * What /verify-email did. `user` is what the JSON answer carries (Better Auth sends null except after a change of
 * address); `signedIn` is a new session for the cookie (auto sign-in); `actorUser` is the caller's own user after
 * the change, for re-issuing their cookie.
 */
export interface VerifyEmailOutcome {
  kind: 'verified' | 'already-verified' | 'change-confirmed' | 'email-changed';
  user: User | null;
  signedIn: { session: Session; user: User; token: string } | null;
  actorUser: User | null;
}

export type VerificationService = ReturnType<typeof createVerificationService>;

export function createVerificationService(deps: VerificationDeps) {
  const { db, clock, sessions, tokens, accountMail } = deps;

  async function changeAddress(userId: string, newEmail: string): Promise<User> {
    try {
      const updated = await sessions.userChanging(userId, (trx) =>
        usersRepository(trx).update(userId, { email: newEmail, emailVerified: true, updatedAt: clock.now() }),
      );
      if (!updated) throw authError(401, 'USER_NOT_FOUND');
      return updated;
    } catch (error) {
      // Someone took the address between the request and the click (422, as Better Auth answers a taken address).
      if (isUniqueViolation(error)) throw authError(422, 'USER_ALREADY_EXISTS');
      throw error;
    }
  }

  return {
    /**
     * Anonymous callers always succeed, and an unknown or already verified address costs the same token signing
     * as a real send, so the answer does not tell which addresses have accounts. Signed-in callers may only ask
     * for their own unverified address.
     */
    async send(actor: AuthActor | null, input: { email: string; callbackURL?: string }): Promise<void> {
      const email = lowercaseEmail(input.email);
      if (!actor) {
        const user = await usersRepository(db).findByEmail(email);
        if (user && !user.emailVerified) await accountMail.sendVerification(db, user, input.callbackURL);
        else await tokens.sign({ email });
        return;
      }
      if (actor.user.email !== email) throw authError(400, 'EMAIL_MISMATCH');
      if (actor.user.emailVerified) throw authError(400, 'EMAIL_ALREADY_VERIFIED');
      await accountMail.sendVerification(db, actor.user, input.callbackURL);
    },

    /** Failures are DomainErrors (401, or 422 for a taken address) whose code the route turns into `?error=<code>`. */
    async verify(
      token: string,
      actor: AuthActor | null,
      options: { callbackURL?: string; meta: RequestMeta },
    ): Promise<VerifyEmailOutcome> {
      const claims = await tokens.verify(token);
      const users = usersRepository(db);

      if (claims.updateTo) {
        if (!claims.userId) throw authError(401, 'INVALID_TOKEN');
        const bound = await users.findById(claims.userId);
        if (!bound) throw authError(401, 'USER_NOT_FOUND');
        // The address moved since the token was issued: the token is spent (or stale).
        if (bound.email !== claims.email) throw authError(401, 'INVALID_TOKEN');
        if (actor && actor.user.id !== bound.id) throw authError(401, 'INVALID_USER');
        if (claims.requestType === 'change-email-confirmation') {
          await accountMail.sendChangeVerification(db, bound, claims.updateTo, options.callbackURL);
          return { kind: 'change-confirmed', user: null, signedIn: null, actorUser: null };
        }
        if (claims.requestType !== 'change-email-verification') throw authError(401, 'INVALID_TOKEN');
        // Opening the link in the new mailbox proves the new address, so it arrives verified.
        const updated = await changeAddress(bound.id, lowercaseEmail(claims.updateTo));
        return { kind: 'email-changed', user: updated, signedIn: null, actorUser: actor ? updated : null };
      }

      const user = await users.findByEmail(claims.email);
      if (!user) throw authError(401, 'USER_NOT_FOUND');
      if (claims.userId && claims.userId !== user.id) throw authError(401, 'INVALID_TOKEN');
      if (user.emailVerified) return { kind: 'already-verified', user: null, signedIn: null, actorUser: null };
      const verified = await sessions.userChanging(user.id, (trx) =>
        usersRepository(trx).update(user.id, { emailVerified: true, updatedAt: clock.now() }),
      );
      if (!verified) throw authError(401, 'USER_NOT_FOUND');
      const ownActor = actor?.user.id === verified.id;
      let signedIn: VerifyEmailOutcome['signedIn'] = null;
      if (deps.flows.autoSignInAfterVerification && !ownActor) {
        const { session, token: sessionToken } = await sessions.create(db, verified.id, {
          rememberMe: true,
          meta: options.meta,
        });
        signedIn = { session, user: verified, token: sessionToken };
      }
      return { kind: 'verified', user: null, signedIn, actorUser: ownActor ? verified : null };
    },
  };
}
