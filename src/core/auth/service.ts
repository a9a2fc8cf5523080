import type { Background } from '../kernel/background.js';
import type { Clock } from '../kernel/clock.js';
import { HOUR } from '../kernel/clock.js';
import type { TillConfig } from '../config/index.js';
import { DomainError } from '../kernel/errors.js';
import type { Db } from '../database/index.js';
import { isUniqueViolation, transaction } from '../database/index.js';
import { newAuthId, randomAlphanumeric } from '../kernel/ids.js';
import { normalizeEmail } from '../kernel/email.js';
import { isValidEmail, lowercaseEmail } from './email.js';
import { authError, tooManyRequests } from './errors.js';
import type { PasswordHasher } from './password-hasher.js';
import { checkPasswordLength as checkPasswordRules, credentialAccount } from './password-rules.js';
import type { FailureWindow, Session, User } from './repository.js';
import { accountsRepository, signInFailuresRepository, usersRepository } from './repository.js';
import type { AuthActor, RequestMeta, SessionService } from './sessions.js';

export interface AuthServiceDeps {
  db: Db;
  clock: Clock;
  config: Pick<TillConfig, 'password' | 'accountFailureLimit'>;
  hasher: PasswordHasher;
  sessions: SessionService;
  /** Verification mail on sign-up and sign-in; without it (unit tests) addresses are never checked. */
  emailVerification?: EmailVerificationHooks;
  background: Background;
}

export interface EmailVerificationHooks {
  requireEmailVerification: boolean;
  sendOnSignUp: boolean;
  /** Writes a verification mail for the user in the given transaction. */
  send(db: Db, user: User, callbackURL?: string): Promise<void>;
}

/** A sign-up that requires verification signs nobody in: no session, no token. */
export interface SignedUp {
  user: User;
  session: Session | null;
  token: string | null;
}

export interface SignedIn {
  user: User;
  session: Session;
  token: string;
}

const FAILURE_WINDOW_MS = HOUR;

/** Whom failures are counted against: the client address, within the column's width. */
function failureClient(meta: RequestMeta): string {
  return (meta.ipAddress || 'unknown').slice(0, 64);
}

export type AuthService = ReturnType<typeof createAuthService>;

export function createAuthService(deps: AuthServiceDeps) {
  const { db, clock, hasher, sessions, config, background } = deps;

  // Unknown addresses and accounts without a password still pay for one bcrypt comparison, against this hash, so
  // the answer takes as long as a wrong password does.
  let dummyHash: Promise<string> | null = null;
  const equalizeTiming = async (password: string): Promise<void> => {
    dummyHash ??= hasher.hash(randomAlphanumeric(24));
    await hasher.verify(password, await dummyHash);
  };

  const checkPasswordLength = (password: string): void => checkPasswordRules(config, password);

  /**
   * The per-address cap (TILL_ACCOUNT_FAILURE_LIMIT failures an hour, over every client and daemon) holds back only
   * the clients that have failed for this address themselves in the window. Anyone could otherwise lock any account
   * by failing from elsewhere; this way the owner, signing in from a client that has not been failing, still gets
   * through (OWASP ASVS 6.3: no lockout an attacker can impose). An attacker spread over many client addresses gets
   * one guess per address and hour once the cap is reached, and the reset mail lifts every hold.
   */
  async function assertBelowFailureCap(email: string, client: string): Promise<void> {
    const { all, own } = await signInFailuresRepository(db).get(email, client);
    const now = clock.now().getTime();
    const endOf = (window: FailureWindow | null): number =>
      window ? window.windowStartedAt.getTime() + FAILURE_WINDOW_MS : 0;
    if (!all || !own || all.failures < config.accountFailureLimit) return;
    // Free again when either window ends: the address's count resets, or this client's own failures age out.
    const retryAfter = (Math.min(endOf(all), endOf(own)) - now) / 1000;
    if (retryAfter <= 0) return;
    throw tooManyRequests(retryAfter);
  }

  /** The background half of a sign-up under required verification: a taken address gets nothing. */
  async function createUnverified(user: User, passwordHash: string, callbackURL?: string): Promise<void> {
    if (await usersRepository(db).findHolder(user.email)) return;
    try {
      await transaction(db, async (trx) => {
        await usersRepository(trx).insert(user);
        await accountsRepository(trx).insert(credentialAccount(user.id, passwordHash, user.createdAt));
        // The account and its verification mail exist together or not at all.
        if (deps.emailVerification?.sendOnSignUp) await deps.emailVerification.send(trx, user, callbackURL);
      });
    } catch (error) {
      // Another sign-up for the address won the race; its owner has the mail.
      if (!isUniqueViolation(error)) throw error;
    }
  }

  async function failSignIn(email: string, client: string): Promise<never> {
    await signInFailuresRepository(db).record(email, client, clock.now(), FAILURE_WINDOW_MS);
    throw authError(401, 'INVALID_EMAIL_OR_PASSWORD');
  }

  return {
    async signUp(
      input: {
        name: string;
        email: string;
        password: string;
        image?: string | null;
        rememberMe?: boolean;
        callbackURL?: string;
      },
      meta: RequestMeta,
    ): Promise<SignedUp> {
      checkPasswordLength(input.password);
      const email = lowercaseEmail(input.email);
      const users = usersRepository(db);
      const verification = deps.emailVerification;
      const requireVerification = verification?.requireEmailVerification === true;
      // Hash before looking the address up, so a taken address does not answer faster than a free one.
      const passwordHash = await hasher.hash(input.password);
      const now = clock.now();
      const user: User = {
        id: newAuthId(),
        email,
        name: input.name,
        emailVerified: false,
        image: input.image ?? null,
        createdAt: now,
        updatedAt: now,
      };
      if (requireVerification) {
        // Nobody is signed in, so a taken address gets the same answer as a free one, a made-up user (as in Better
        // Auth). Creating the account costs writes, a mail and a commit a taken address would skip, so that happens
        // in a background step the answer never waits for: both answers leave after the hash and nothing else.
        background.run('sign-up', () => createUnverified(user, passwordHash, input.callbackURL));
        return { user, session: null, token: null };
      }
      // Taken also when another user holds the same mailbox under another spelling (kernel/email.ts).
      if (await users.findHolder(email)) throw authError(422, 'USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL');
      try {
        return await transaction(db, async (trx) => {
          await usersRepository(trx).insert(user);
          await accountsRepository(trx).insert(credentialAccount(user.id, passwordHash, now));
          // In the sign-up's transaction: the account and its verification mail exist together or not at all.
          if (verification?.sendOnSignUp) await verification.send(trx, user, input.callbackURL);
          const { session, token } = await sessions.create(trx, user.id, {
            rememberMe: input.rememberMe !== false,
            meta,
          });
          return { user, session, token };
        });
      } catch (error) {
        // Two sign-ups for one address at once: the unique index decides, the loser hears what it would have.
        if (isUniqueViolation(error)) throw authError(422, 'USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL');
        throw error;
      }
    },

    async signIn(
      input: { email: string; password: string; rememberMe?: boolean | null; callbackURL?: string },
      meta: RequestMeta,
    ): Promise<SignedIn> {
      if (!isValidEmail(input.email)) throw authError(400, 'INVALID_EMAIL');
      const email = lowercaseEmail(input.email);
      const client = failureClient(meta);
      await assertBelowFailureCap(email, client);
      const users = usersRepository(db);
      // The exact address first; failing that, the user whose mailbox it reaches (spec §5). Failures still count
      // against the address as typed, lower-cased.
      const user = (await users.findByEmail(email)) ?? (await users.findByNormalizedEmail(normalizeEmail(email)));
      const account = user ? await accountsRepository(db).findCredential(user.id) : null;
      if (!user || !account?.password) {
        await equalizeTiming(input.password);
        return failSignIn(email, client);
      }
      if (!(await hasher.verify(input.password, account.password))) return failSignIn(email, client);
      await signInFailuresRepository(db).clearClient(email, client);
      if (deps.emailVerification?.requireEmailVerification && !user.emailVerified) {
        // Only after the right password: the mail goes to the address's owner, and reveals nothing to anyone else.
        await deps.emailVerification.send(db, user, input.callbackURL);
        throw authError(403, 'EMAIL_NOT_VERIFIED');
      }
      const { session, token } = await sessions.create(db, user.id, { rememberMe: input.rememberMe !== false, meta });
      return { user, session, token };
    },

    async updateUser(
      actor: AuthActor,
      input: { name?: string; image?: string | null; email?: unknown },
    ): Promise<User> {
      if (input.email !== undefined) throw authError(400, 'EMAIL_CAN_NOT_BE_UPDATED');
      if (input.name === undefined && input.image === undefined)
        throw new DomainError(400, undefined, 'No fields to update');
      const updated = await sessions.userChanging(actor.user.id, (trx) =>
        usersRepository(trx).update(actor.user.id, { name: input.name, image: input.image, updatedAt: clock.now() }),
      );
      if (!updated) throw authError(400, 'USER_NOT_FOUND');
      return updated;
    },

    async changePassword(
      actor: AuthActor,
      input: { currentPassword: string; newPassword: string; revokeOtherSessions?: boolean | null },
      meta: RequestMeta,
    ): Promise<{ user: User; session: Session | null; token: string | null }> {
      checkPasswordLength(input.newPassword);
      const account = await accountsRepository(db).findCredential(actor.user.id);
      if (!account?.password) throw authError(400, 'CREDENTIAL_ACCOUNT_NOT_FOUND');
      if (!(await hasher.verify(input.currentPassword, account.password))) throw authError(400, 'INVALID_PASSWORD');
      const passwordHash = await hasher.hash(input.newPassword);
      return transaction(db, async (trx) => {
        await accountsRepository(trx).setPassword(account.id, passwordHash, clock.now());
        if (!input.revokeOtherSessions) return { user: actor.user, session: null, token: null };
        // Every session ends, this one included, and a new one replaces it (session fixation, ASVS 7.2.4).
        await sessions.revokeAll(actor.user.id, trx);
        const { session, token } = await sessions.create(trx, actor.user.id, {
          rememberMe: actor.session.rememberMe,
          meta,
        });
        return { user: actor.user, session, token };
      });
    },

    async verifyPassword(actor: AuthActor, password: string): Promise<void> {
      const account = await accountsRepository(db).findCredential(actor.user.id);
      if (!account?.password) {
        await equalizeTiming(password);
        throw authError(400, 'INVALID_PASSWORD');
      }
      if (!(await hasher.verify(password, account.password))) throw authError(400, 'INVALID_PASSWORD');
    },

    /**
     * Gives a password to a user who has none (signed up through a social provider). Server-side only: Better
     * Auth does not expose it over HTTP, and neither does /api/auth; the admin API reaches it.
     */
    async setPassword(target: { userId?: string; email?: string }, newPassword: string): Promise<User> {
      checkPasswordLength(newPassword);
      const users = usersRepository(db);
      const user = target.userId
        ? await users.findById(target.userId)
        : target.email
          ? await users.findByEmail(lowercaseEmail(target.email))
          : null;
      if (!user) throw authError(404, 'USER_NOT_FOUND');
      const passwordHash = await hasher.hash(newPassword);
      const now = clock.now();
      await transaction(db, async (trx) => {
        const accounts = accountsRepository(trx);
        const existing = await accounts.findCredential(user.id);
        if (existing?.password) throw authError(400, 'PASSWORD_ALREADY_SET');
        if (existing) await accounts.setPassword(existing.id, passwordHash, now);
        else await accounts.insert(credentialAccount(user.id, passwordHash, now));
      });
      return user;
    },
  };
}
