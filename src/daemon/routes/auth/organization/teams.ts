import {
  createTeamBody,
  listTeamMembersQuery,
  removeTeamBody,
  setActiveTeamBody,
  teamMemberBody,
  teamQuery,
  updateTeamBody,
} from '../../../../core/organizations/schemas.js';
import { teamMemberToWire, teamToWire } from '../../../../core/organizations/wire.js';
import { issueSessionCookie } from '../deps.js';
import { respondNull, type AuthApi } from '../route.js';

/** Team routes; each answers 404 (unknown path) unless TILL_ORG_TEAMS is on, before it looks at the request. */
export function teamRoutes(api: AuthApi): void {
  const { deps } = api;
  const teams = deps.core.organizations.teams;
  const enabled = () => teams.assertEnabled();

  api.route(
    {
      method: 'post',
      path: '/organization/create-team',
      caller: 'session',
      precondition: enabled,
      body: createTeamBody,
    },
    async ({ actor, body }) => teamToWire(await teams.create(actor, body)),
  );

  api.route(
    {
      method: 'post',
      path: '/organization/update-team',
      caller: 'session',
      precondition: enabled,
      body: updateTeamBody,
    },
    async ({ actor, body }) => teamToWire(await teams.update(actor, body)),
  );

  api.route(
    {
      method: 'post',
      path: '/organization/remove-team',
      caller: 'session',
      precondition: enabled,
      body: removeTeamBody,
    },
    async ({ actor, body }) => {
      await teams.remove(actor, body);
      return { message: 'Team removed successfully.' };
    },
  );

  api.route(
    { method: 'get', path: '/organization/list-teams', caller: 'session', precondition: enabled, query: teamQuery },
    async ({ actor, query }) => (await teams.list(actor, query.organizationId)).map(teamToWire),
  );

  api.route(
    {
      method: 'post',
      path: '/organization/set-active-team',
      caller: 'session',
      precondition: enabled,
      body: setActiveTeamBody,
    },
    async ({ ctx, actor, body }) => {
      const team = await teams.setActive(actor, body.teamId);
      if (actor.source === 'cookie')
        issueSessionCookie(deps, ctx, { ...actor, session: { ...actor.session, activeTeamId: team?.id ?? null } });
      if (team) return teamToWire(team);
      respondNull(ctx);
      return undefined;
    },
  );

  api.route(
    { method: 'get', path: '/organization/list-user-teams', caller: 'session', precondition: enabled },
    async ({ actor }) => (await teams.listForUser(actor)).map(teamToWire),
  );

  api.route(
    {
      method: 'get',
      path: '/organization/list-team-members',
      caller: 'session',
      precondition: enabled,
      query: listTeamMembersQuery,
    },
    async ({ actor, query }) => (await teams.listMembers(actor, query.teamId)).map(teamMemberToWire),
  );

  api.route(
    {
      method: 'post',
      path: '/organization/add-team-member',
      caller: 'session',
      precondition: enabled,
      body: teamMemberBody,
    },
    async ({ actor, body }) => teamMemberToWire(await teams.addMember(actor, body)),
  );

  api.route(
    {
      method: 'post',
      path: '/organization/remove-team-member',
      caller: 'session',
      precondition: enabled,
      body: teamMemberBody,
    },
    async ({ actor, body }) => {
      await teams.removeMember(actor, body);
      return { message: 'Team member removed successfully.' };
    },
  );
}
