import type { TeamWire } from '../../../core/organizations/schemas.js';
import { call, orgQuery, type CallOptions, type Target } from '../../context.js';
import { ApiError, CliError } from '../../errors.js';
import { listMembers } from '../org/members.js';

/** A team route; the daemon answers a bare 404 when teams are off, which alone would not tell anyone why. */
export async function teamCall<T>(
  target: Target,
  method: 'GET' | 'POST',
  route: string,
  options: CallOptions = {},
): Promise<T> {
  try {
    return await call<T>(target, method, `/api/auth/organization/${route}`, options);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404 && !error.code)
      throw new CliError('this daemon has teams turned off (TILL_ORG_TEAMS=off)');
    throw error;
  }
}

/** The teams of the named organization, or of the active one when organizationId is undefined. */
export function listTeams(target: Target, organizationId: string | undefined): Promise<TeamWire[]> {
  return teamCall<TeamWire[]>(target, 'GET', `list-teams${orgQuery(organizationId)}`);
}

/** Finds a team by id among the organization's teams, so the organization of its members is known. */
export async function resolveTeam(
  target: Target,
  teamId: string,
  organizationId: string | undefined,
): Promise<TeamWire> {
  const team = (await listTeams(target, organizationId)).find((t) => t.id === teamId);
  if (!team) throw new CliError(`no team "${teamId}" in the organization (see \`till team list\`)`);
  return team;
}

/**
 * Team ids for references people type: an id, or a name (scripts know names, not the ids a fresh daemon made).
 * An id wins over a name; a name that several teams share is refused rather than guessed.
 */
export async function resolveTeamIds(
  target: Target,
  refs: string[],
  organizationId: string | undefined,
): Promise<string[]> {
  const teams = await listTeams(target, organizationId);
  return refs.map((ref) => {
    const byId = teams.find((team) => team.id === ref);
    if (byId) return byId.id;
    const byName = teams.filter((team) => team.name === ref);
    if (byName.length === 1) return byName[0]!.id;
    if (byName.length > 1)
      throw new CliError(`several teams are named "${ref}"; give the team's id (see \`till team list\`)`);
    throw new CliError(`no team "${ref}" in the organization (see \`till team list\`)`);
  });
}

/** The routes want a user id; people type an e-mail, which is looked up among the organization's members. */
export async function resolveUserId(target: Target, organizationId: string, ref: string): Promise<string> {
  if (!ref.includes('@')) return ref;
  const lowered = ref.toLowerCase();
  const member = (await listMembers(target, organizationId)).find((m) => m.user.email.toLowerCase() === lowered);
  if (!member) throw new CliError(`${ref} is not a member of the organization (invite them with \`till org invite\`)`);
  return member.userId;
}
