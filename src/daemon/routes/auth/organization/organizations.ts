import type Router from '@koa/router';
import type { Context } from 'koa';
import {
  checkSlugBody,
  createOrganizationBody,
  getFullOrganizationQuery,
  getOrganizationQuery,
  hasPermissionBody,
  organizationIdBody,
  setActiveBody,
  updateOrganizationBody,
} from '../../../../core/organizations/schemas.js';
import { invitationToWire, memberToWire, memberWithUserToWire, organizationToWire, teamToWire } from '../../../../core/organizations/wire.js';
import { guard } from '../../../guard.js';
import { bodyOf, issueSessionCookie, type AuthRouteDeps } from '../deps.js';

function respondNull(ctx: Context): void {
  ctx.status = 200;
  ctx.type = 'application/json';
  ctx.body = 'null';
}

export function organizationCrudRoutes(router: Router, deps: AuthRouteDeps): void {
  const { core, sessionAuth } = deps;
  const organizations = core.organizations;

  router.post('/organization/create', async (ctx) => {
    const actor = await sessionAuth.optionalActor(ctx);
    // Better Auth answers a create without a session 401 with an empty body.
    if (!actor) {
      ctx.status = 401;
      ctx.body = '';
      return;
    }
    const body = guard(createOrganizationBody, bodyOf(ctx), 'body');
    const { organization, member } = await organizations.create(actor, body);
    // The session row now names the organization; Better Auth does not re-issue the cookie here.
    ctx.body = { ...organizationToWire(organization, 'parsed'), members: [memberToWire(member)] };
  });

  router.post('/organization/check-slug', async (ctx) => {
    const body = guard(checkSlugBody, bodyOf(ctx), 'body');
    await sessionAuth.requireActor(ctx);
    await organizations.checkSlug(body.slug);
    ctx.body = { status: true };
  });

  router.post('/organization/update', async (ctx) => {
    const body = guard(updateOrganizationBody, bodyOf(ctx), 'body');
    const actor = await sessionAuth.requireActor(ctx);
    ctx.body = organizationToWire(await organizations.update(actor, body), 'parsed');
  });

  router.post('/organization/delete', async (ctx) => {
    const body = guard(organizationIdBody, bodyOf(ctx), 'body');
    const actor = await sessionAuth.requireActor(ctx);
    ctx.body = organizationToWire(await organizations.delete(actor, body.organizationId));
  });

  router.get('/organization/list', async (ctx) => {
    const actor = await sessionAuth.requireActor(ctx);
    ctx.body = (await organizations.list(actor)).map((organization) => organizationToWire(organization));
  });

  router.post('/organization/set-active', async (ctx) => {
    const body = guard(setActiveBody, bodyOf(ctx), 'body');
    const actor = await sessionAuth.requireActor(ctx);
    const organization = await organizations.setActive(actor, body);
    const session = { ...actor.session, activeOrganizationId: organization?.id ?? null, activeTeamId: null };
    if (actor.source === 'cookie') issueSessionCookie(deps, ctx, { ...actor, session });
    if (organization) ctx.body = organizationToWire(organization);
    else respondNull(ctx);
  });

  router.get('/organization/get-organization', async (ctx) => {
    const query = guard(getOrganizationQuery, ctx.query, 'query');
    const actor = await sessionAuth.requireActor(ctx);
    const organization = await organizations.members.get(actor, query);
    if (organization) ctx.body = organizationToWire(organization);
    else respondNull(ctx);
  });

  router.get('/organization/get-full-organization', async (ctx) => {
    const query = guard(getFullOrganizationQuery, ctx.query, 'query');
    const actor = await sessionAuth.requireActor(ctx);
    const full = await organizations.members.getFull(actor, query);
    if (!full) {
      respondNull(ctx);
      return;
    }
    ctx.body = {
      ...organizationToWire(full.organization),
      members: full.members.map(memberWithUserToWire),
      invitations: full.invitations.map(invitationToWire),
      ...(full.teams ? { teams: full.teams.map(({ team, memberCount }) => ({ ...teamToWire(team), memberCount })) } : {}),
    };
  });

  router.post('/organization/has-permission', async (ctx) => {
    const body = guard(hasPermissionBody, bodyOf(ctx), 'body');
    const actor = await sessionAuth.requireActor(ctx);
    const success = await organizations.hasPermission(actor, body.organizationId, (body.permissions ?? body.permission)!);
    ctx.body = { error: null, success };
  });
}
