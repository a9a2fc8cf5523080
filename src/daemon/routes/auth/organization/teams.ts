import type Router from '@koa/router';
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
import { guard } from '../../../guard.js';
import { bodyOf, issueSessionCookie, type AuthRouteDeps } from '../deps.js';

/** Team routes; each answers 404 (unknown path) unless TILL_ORG_TEAMS is on. */
export function teamRoutes(router: Router, deps: AuthRouteDeps): void {
  const { core, sessionAuth } = deps;
  const teams = core.organizations.teams;

  router.post('/organization/create-team', async (ctx) => {
    teams.assertEnabled();
    const body = guard(createTeamBody, bodyOf(ctx), 'body');
    ctx.body = teamToWire(await teams.create(await sessionAuth.requireActor(ctx), body));
  });

  router.post('/organization/update-team', async (ctx) => {
    teams.assertEnabled();
    const body = guard(updateTeamBody, bodyOf(ctx), 'body');
    ctx.body = teamToWire(await teams.update(await sessionAuth.requireActor(ctx), body));
  });

  router.post('/organization/remove-team', async (ctx) => {
    teams.assertEnabled();
    const body = guard(removeTeamBody, bodyOf(ctx), 'body');
    await teams.remove(await sessionAuth.requireActor(ctx), body);
    ctx.body = { message: 'Team removed successfully.' };
  });

  router.get('/organization/list-teams', async (ctx) => {
    teams.assertEnabled();
    const query = guard(teamQuery, ctx.query, 'query');
    ctx.body = (await teams.list(await sessionAuth.requireActor(ctx), query.organizationId)).map(teamToWire);
  });

  router.post('/organization/set-active-team', async (ctx) => {
    teams.assertEnabled();
    const body = guard(setActiveTeamBody, bodyOf(ctx), 'body');
    const actor = await sessionAuth.requireActor(ctx);
    const team = await teams.setActive(actor, body.teamId);
    if (actor.source === 'cookie') issueSessionCookie(deps, ctx, { ...actor, session: { ...actor.session, activeTeamId: team?.id ?? null } });
    if (team) ctx.body = teamToWire(team);
    else {
      ctx.type = 'application/json';
      ctx.body = 'null';
    }
  });

  router.get('/organization/list-user-teams', async (ctx) => {
    teams.assertEnabled();
    ctx.body = (await teams.listForUser(await sessionAuth.requireActor(ctx))).map(teamToWire);
  });

  router.get('/organization/list-team-members', async (ctx) => {
    teams.assertEnabled();
    const query = guard(listTeamMembersQuery, ctx.query, 'query');
    ctx.body = (await teams.listMembers(await sessionAuth.requireActor(ctx), query.teamId)).map(teamMemberToWire);
  });

  router.post('/organization/add-team-member', async (ctx) => {
    teams.assertEnabled();
    const body = guard(teamMemberBody, bodyOf(ctx), 'body');
    ctx.body = teamMemberToWire(await teams.addMember(await sessionAuth.requireActor(ctx), body));
  });

  router.post('/organization/remove-team-member', async (ctx) => {
    teams.assertEnabled();
    const body = guard(teamMemberBody, bodyOf(ctx), 'body');
    await teams.removeMember(await sessionAuth.requireActor(ctx), body);
    ctx.body = { message: 'Team member removed successfully.' };
  });
}
