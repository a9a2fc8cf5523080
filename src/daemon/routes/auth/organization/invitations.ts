import type Router from '@koa/router';
import { getInvitationQuery, invitationIdBody, inviteMemberBody, listInvitationsQuery } from '../../../../core/organizations/schemas.js';
import { invitationToWire, memberToWire } from '../../../../core/organizations/wire.js';
import { DomainError } from '../../../../core/kernel/errors.js';
import { guard } from '../../../guard.js';
import { bodyOf, type AuthRouteDeps } from '../deps.js';

export function invitationRoutes(router: Router, deps: AuthRouteDeps): void {
  const { core, sessionAuth } = deps;
  const invitations = core.organizations.invitations;

  router.post('/organization/invite-member', async (ctx) => {
    const body = guard(inviteMemberBody, bodyOf(ctx), 'body');
    const actor = await sessionAuth.requireActor(ctx);
    ctx.body = invitationToWire(await invitations.invite(actor, body));
  });

  router.post('/organization/accept-invitation', async (ctx) => {
    const body = guard(invitationIdBody, bodyOf(ctx), 'body');
    const actor = await sessionAuth.requireActor(ctx);
    const accepted = await invitations.accept(actor, body.invitationId);
    ctx.body = { invitation: invitationToWire(accepted.invitation), member: memberToWire(accepted.member) };
  });

  router.post('/organization/reject-invitation', async (ctx) => {
    const body = guard(invitationIdBody, bodyOf(ctx), 'body');
    const actor = await sessionAuth.requireActor(ctx);
    ctx.body = { invitation: invitationToWire(await invitations.reject(actor, body.invitationId)), member: null };
  });

  router.post('/organization/cancel-invitation', async (ctx) => {
    const body = guard(invitationIdBody, bodyOf(ctx), 'body');
    const actor = await sessionAuth.requireActor(ctx);
    ctx.body = invitationToWire(await invitations.cancel(actor, body.invitationId));
  });

  router.get('/organization/get-invitation', async (ctx) => {
    const query = guard(getInvitationQuery, ctx.query, 'query');
    const actor = await sessionAuth.optionalActor(ctx);
    // Better Auth's own wording here, without a code.
    if (!actor) throw new DomainError(401, undefined, 'Not authenticated');
    const found = await invitations.get(actor, query.id);
    ctx.body = {
      ...invitationToWire(found.invitation),
      organizationName: found.organization.name,
      organizationSlug: found.organization.slug,
      inviterEmail: found.inviterEmail,
    };
  });

  router.get('/organization/list-invitations', async (ctx) => {
    const query = guard(listInvitationsQuery, ctx.query, 'query');
    const actor = await sessionAuth.requireActor(ctx);
    ctx.body = (await invitations.listForOrganization(actor, query.organizationId)).map(invitationToWire);
  });

  router.get('/organization/list-user-invitations', async (ctx) => {
    const actor = await sessionAuth.requireActor(ctx);
    ctx.body = (await invitations.listForUser(actor)).map(invitationToWire);
  });
}
