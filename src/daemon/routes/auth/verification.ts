import { sendVerificationEmailBody, verifyEmailQuery } from '../../../core/auth/schemas.js';
import type { VerifyEmailOutcome } from '../../../core/auth/verification.js';
import { userToWire } from '../../../core/auth/wire.js';
import { isDomainError } from '../../../core/kernel/errors.js';
import { requestMeta } from '../../auth/session-auth.js';
import { issueSessionCookie } from './deps.js';
import { appendQuery, redirect, redirectErrorCode } from './redirect.js';
import type { AuthApi } from './route.js';

export function verificationRoutes(api: AuthApi): void {
  const { deps } = api;
  const { core } = deps;

  api.route(
    { method: 'post', path: '/send-verification-email', caller: 'optional', body: sendVerificationEmailBody },
    async ({ actor, body }) => {
      await core.emailFlows.verification.send(actor, body);
      return { status: true };
    },
  );

  // The link in verification and change-of-address mails. With a callbackURL (already checked against the
  // trusted origins) every outcome is a redirect, failures carrying `?error=<code>`; without one, JSON.
  api.route(
    { method: 'get', path: '/verify-email', caller: 'optional', query: verifyEmailQuery },
    async ({ ctx, actor, query }) => {
      let outcome: VerifyEmailOutcome;
      try {
        outcome = await core.emailFlows.verification.verify(query.token, actor, {
          callbackURL: query.callbackURL,
          meta: requestMeta(ctx),
        });
      } catch (error) {
        if (query.callbackURL && isDomainError(error) && error.code) {
          redirect(ctx, appendQuery(query.callbackURL, { error: redirectErrorCode(error.code) }));
          return undefined;
        }
        throw error;
      }
      if (outcome.signedIn) issueSessionCookie(deps, ctx, outcome.signedIn);
      // The caller's own user changed: a re-issued cookie carries the new state (cookie cache included).
      else if (outcome.actorUser && actor?.source === 'cookie')
        issueSessionCookie(deps, ctx, { ...actor, user: outcome.actorUser });
      if (query.callbackURL) {
        redirect(ctx, query.callbackURL);
        return undefined;
      }
      return outcome.kind === 'change-confirmed'
        ? { status: true }
        : { status: true, user: outcome.user ? userToWire(outcome.user) : null };
    },
  );
}
