import { lowercaseEmail } from '../auth/email.js';
import type { Session, User } from '../auth/repository.js';
import { usersRepository } from '../auth/repository.js';
import type { RequestMeta, SessionService } from '../auth/sessions.js';
import type { Clock } from '../kernel/clock.js';
import type { Db } from '../database/index.js';
import { transaction } from '../database/index.js';
import { newAuthId } from '../kernel/ids.js';
import type { OAuthConfig } from '../config/index.js';
import type { SecretBox } from '../kernel/secret-box.js';
import { OAuthFlowError, type TokenSet } from './client.js';
import type { ProviderProfile } from './providers.js';
import { socialAccountsRepository } from './repository.js';

export interface SocialSignIn {
  user: User;
  session: Session;
  token: string;
  isNewUser: boolean;
}

export interface LinkTarget {
  userId: string;
  email: string;
}

/**
 * Turns a provider identity into a Till user (Better Auth's handleOAuthUserInfo and link flow): the account found
 * by provider subject wins; otherwise an existing user with the same address is linked when the provider is
 * trusted or vouches for the address; otherwise a user is created, unless sign-up is off.
 */
export function createAccountLinker(deps: {
  db: Db;
  clock: Clock;
  box: SecretBox;
  sessions: SessionService;
  config: OAuthConfig;
}) {
  const { db, clock, box, sessions, config } = deps;

  async function markVerified(trx: Db, user: User, profile: ProviderProfile): Promise<User> {
    if (user.emailVerified || !profile.emailVerified || lowercaseEmail(profile.email ?? '') !== user.email) return user;
    const updated = await sessions.userChanging(
      user.id,
      (inner) => usersRepository(inner).update(user.id, { emailVerified: true, updatedAt: clock.now() }),
      trx,
    );
    return updated ?? user;
  }

  return {
    async signIn(
      providerId: string,
      profile: ProviderProfile,
      tokens: TokenSet,
      options: { requestSignUp?: boolean },
      meta: RequestMeta,
    ): Promise<SocialSignIn> {
      if (!profile.email) throw new OAuthFlowError('email_not_found');
      const email = lowercaseEmail(profile.email);
      const outcome = await transaction(db, async (trx) => {
        const accounts = socialAccountsRepository(trx, box);
        const users = usersRepository(trx);
        const now = clock.now();
        const existing = await accounts.findByProviderAccount(providerId, profile.id);
        if (existing) {
          const user = await users.findById(existing.userId);
          if (!user) throw new OAuthFlowError('unable_to_get_user_info');
          await accounts.updateTokens(existing.id, tokens, now);
          return { user: await markVerified(trx, user, profile), isNewUser: false };
        }
        const user = await users.findByEmail(email);
        if (user) {
          if (!config.trustedProviders.includes(providerId) && !profile.emailVerified)
            throw new OAuthFlowError('account_not_linked');
          await accounts.insert(
            { id: newAuthId(), userId: user.id, providerId, accountId: profile.id, at: now },
            tokens,
          );
          return { user: await markVerified(trx, user, profile), isNewUser: false };
        }
        if (config.disableSignUp || (config.disableImplicitSignUp && !options.requestSignUp))
          throw new OAuthFlowError('signup_disabled');
        const created: User = {
          id: newAuthId(),
          email,
          name: profile.name || email.split('@')[0]!,
          emailVerified: profile.emailVerified,
          image: profile.image,
          createdAt: now,
          updatedAt: now,
        };
        try {
          await transaction(
            trx,
            async (inner) => {
              await usersRepository(inner).insert(created);
              await socialAccountsRepository(inner, box).insert(
                { id: newAuthId(), userId: created.id, providerId, accountId: profile.id, at: now },
                tokens,
              );
            },
            { savepoint: true },
          );
        } catch {
          throw new OAuthFlowError('unable_to_create_user');
        }
        return { user: created, isNewUser: true };
      });
      try {
        const { session, token } = await sessions.create(db, outcome.user.id, { rememberMe: true, meta });
        return { ...outcome, session, token };
      } catch {
        throw new OAuthFlowError('unable_to_create_session');
      }
    },

    /** Adds a provider identity to a signed-in user (link-social's callback). */
    async link(providerId: string, profile: ProviderProfile, tokens: TokenSet, target: LinkTarget): Promise<void> {
      await transaction(db, async (trx) => {
        const accounts = socialAccountsRepository(trx, box);
        const now = clock.now();
        const existing = await accounts.findByProviderAccount(providerId, profile.id);
        if (existing) {
          if (existing.userId !== target.userId) throw new OAuthFlowError('account_already_linked_to_different_user');
          await accounts.updateTokens(existing.id, tokens, now);
          return;
        }
        // Better Auth's order: an unvouched address refuses linking before a different address does.
        if (!config.trustedProviders.includes(providerId) && !profile.emailVerified)
          throw new OAuthFlowError('unable_to_link_account');
        if (!profile.email || (!config.allowDifferentEmails && lowercaseEmail(profile.email) !== target.email))
          throw new OAuthFlowError('email_does_not_match');
        await accounts.insert(
          { id: newAuthId(), userId: target.userId, providerId, accountId: profile.id, at: now },
          tokens,
        );
      });
    },
  };
}

export type AccountLinker = ReturnType<typeof createAccountLinker>;
