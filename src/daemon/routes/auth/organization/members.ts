import type Router from '@koa/router';
import { activeMemberRoleQuery, listMembersQuery, organizationIdBody, removeMemberBody, updateMemberRoleBody } from '../../../../core/organizations/schemas.js';
import { memberToWire, memberWithUserToWire } from '../../../../core/organizations/wire.js';
import { guard } from '../../../guard.js';
import { bodyOf, type AuthRouteDeps } from '../deps.js';

export function memberRoutes(router: Router, deps: AuthRouteDeps): void {
  const { core, sessionAuth } = deps;
  const members = core.organizations.members;

  router.get('/organization/list-members', async (ctx) => {
    const query = guard(listMembersQuery, ctx.query, 'query');
    const actor = await sessionAuth.requireActor(ctx);
    const listed = await members.list(actor, query);
    ctx.body = { members: listed.members.map(memberWithUserToWire), total: listed.total };
  });

  router.get('/organization/get-active-member', async (ctx) => {
    const actor = await sessionAuth.requireActor(ctx);
    ctx.body = memberWithUserToWire(await members.active(actor));
  });

  router.get('/organization/get-active-member-role', async (ctx) => {
    const query = guard(activeMemberRoleQuery, ctx.query, 'query');
    const actor = await sessionAuth.requireActor(ctx);
    ctx.body = { role: await members.activeRole(actor, query) };
  });

  router.post('/organization/update-member-role', async (ctx) => {
    const body = guard(updateMemberRoleBody, bodyOf(ctx), 'body');
    const actor = await sessionAuth.requireActor(ctx);
    ctx.body = memberToWire(await members.updateRole(actor, body));
  });

  router.post('/organization/remove-member', async (ctx) => {
    const body = guard(removeMemberBody, bodyOf(ctx), 'body');
    const actor = await sessionAuth.requireActor(ctx);
    const removed = memberWithUserToWire(await members.remove(actor, body));
    // Better Auth's remove-member answer carries the user without the image.
    ctx.body = { member: { ...removed, user: { id: removed.user.id, name: removed.user.name, email: removed.user.email } } };
  });

  router.post('/organization/leave', async (ctx) => {
    const body = guard(organizationIdBody, bodyOf(ctx), 'body');
    const actor = await sessionAuth.requireActor(ctx);
    ctx.body = memberWithUserToWire(await members.leave(actor, body.organizationId));
  });
}
