import type Router from '@koa/router';
import { sendVerificationEmailBody, verifyEmailQuery } from '../../../core/auth/schemas.js';
import type { VerifyEmailOutcome } from '../../../core/auth/verification.js';
import { userToWire } from '../../../core/auth/wire.js';
import { isDomainError } from '../../../core/kernel/errors.js';
import { guard } from '../../guard.js';
import { requestMeta } from '../../session-auth.js';
import { bodyOf, issueSessionCookie, type AuthRouteDeps } from './deps.js';
import { appendQuery, redirect } from './redirect.js';

export function verificationRoutes(router: Router, deps: AuthRouteDeps): void {
  const { core, sessionAuth } = deps;

  router.post('/send-verification-email', async (ctx) => {
    const body = guard(sendVerificationEmailBody, bodyOf(ctx), 'body');
    const actor = await sessionAuth.optionalActor(ctx);
    await core.emailFlows.verification.send(actor, body);
    ctx.body = { status: true };
  });

  // The link in verification and change-of-address mails. With a callbackURL (already checked against the
  // trusted origins) every outcome is a redirect, failures carrying `?error=<CODE>`; without one, JSON.
  router.get('/verify-email', async (ctx) => {
    const query = guard(verifyEmailQuery, ctx.query, 'query');
    const actor = await sessionAuth.optionalActor(ctx);
    let outcome: VerifyEmailOutcome;
    try {
      outcome = await core.emailFlows.verification.verify(query.token, actor, { callbackURL: query.callbackURL, meta: requestMeta(ctx) });
    } catch (error) {
      if (query.callbackURL && isDomainError(error) && error.code) {
        redirect(ctx, appendQuery(query.callbackURL, { error: error.code }));
        return;
      }
      throw error;
    }
    if (outcome.signedIn) issueSessionCookie(deps, ctx, outcome.signedIn);
    // The caller's own user changed: a re-issued cookie carries the new state (cookie cache included).
    else if (outcome.actorUser && actor?.source === 'cookie') issueSessionCookie(deps, ctx, { ...actor, user: outcome.actorUser });
    if (query.callbackURL) {
      redirect(ctx, query.callbackURL);
      return;
    }
    ctx.body = outcome.kind === 'change-confirmed' ? { status: true } : { status: true, user: outcome.user ? userToWire(outcome.user) : null };
  });
}
