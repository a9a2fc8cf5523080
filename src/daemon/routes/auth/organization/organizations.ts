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
import {
  invitationToWire,
  memberToWire,
  memberWithUserToWire,
  organizationToWire,
  teamToWire,
} from '../../../../core/organizations/wire.js';
import { issueSessionCookie } from '../deps.js';
import { respondNull, type AuthApi } from '../route.js';

export function organizationCrudRoutes(api: AuthApi): void {
  const { deps } = api;
  const organizations = deps.core.organizations;

  // Better Auth answers a create without a session 401 with an empty body, before it looks at the body.
  api.route(
    {
      method: 'post',
      path: '/organization/create',
      caller: 'session',
      signedOut: 'empty-401',
      sessionBeforeInput: true,
      body: createOrganizationBody,
    },
    async ({ actor, body }) => {
      const { organization, member } = await organizations.create(actor, body);
      // The session row now names the organization; Better Auth does not re-issue the cookie here.
      return { ...organizationToWire(organization, 'parsed'), members: [memberToWire(member)] };
    },
  );

  api.route(
    { method: 'post', path: '/organization/check-slug', caller: 'session', body: checkSlugBody },
    async ({ body }) => {
      await organizations.checkSlug(body.slug);
      return { status: true };
    },
  );

  api.route(
    { method: 'post', path: '/organization/update', caller: 'session', body: updateOrganizationBody },
    async ({ actor, body }) => organizationToWire(await organizations.update(actor, body), 'parsed'),
  );

  api.route(
    { method: 'post', path: '/organization/delete', caller: 'session', body: organizationIdBody },
    async ({ actor, body }) => organizationToWire(await organizations.delete(actor, body.organizationId)),
  );

  api.route({ method: 'get', path: '/organization/list', caller: 'session' }, async ({ actor }) =>
    (await organizations.list(actor)).map((organization) => organizationToWire(organization)),
  );

  api.route(
    { method: 'post', path: '/organization/set-active', caller: 'session', body: setActiveBody },
    async ({ ctx, actor, body }) => {
      const organization = await organizations.setActive(actor, body);
      const session = { ...actor.session, activeOrganizationId: organization?.id ?? null, activeTeamId: null };
      if (actor.source === 'cookie') issueSessionCookie(deps, ctx, { ...actor, session });
      if (organization) return organizationToWire(organization);
      respondNull(ctx);
      return undefined;
    },
  );

  api.route(
    { method: 'get', path: '/organization/get-organization', caller: 'session', query: getOrganizationQuery },
    async ({ ctx, actor, query }) => {
      const organization = await organizations.members.get(actor, query);
      if (organization) return organizationToWire(organization);
      respondNull(ctx);
      return undefined;
    },
  );

  api.route(
    { method: 'get', path: '/organization/get-full-organization', caller: 'session', query: getFullOrganizationQuery },
    async ({ ctx, actor, query }) => {
      const full = await organizations.members.getFull(actor, query);
      if (!full) {
        respondNull(ctx);
        return undefined;
      }
      return {
        ...organizationToWire(full.organization),
        members: full.members.map(memberWithUserToWire),
        invitations: full.invitations.map(invitationToWire),
        ...(full.teams
          ? { teams: full.teams.map(({ team, memberCount }) => ({ ...teamToWire(team), memberCount })) }
          : {}),
      };
    },
  );

  api.route(
    { method: 'post', path: '/organization/has-permission', caller: 'session', body: hasPermissionBody },
    async ({ actor, body }) => {
      const success = await organizations.hasPermission(
        actor,
        body.organizationId,
        (body.permissions ?? body.permission)!,
      );
      return { error: null, success };
    },
  );
}
