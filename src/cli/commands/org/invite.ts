import type { InvitationWire } from '../../../core/organizations/schemas.js';
import type { Invocation } from '../../action.js';
import { call, orgIdOf, signedIn } from '../../context.js';
import { info, printJson, printLine } from '../../output.js';
import { resolveTeamIds } from '../team/shared.js';
import { listInvitations, listMembers } from './members.js';

interface Options {
  role: string;
  org?: string;
  /** Teams (ids or names) the invitee joins on accepting; repeatable. */
  team?: string[];
  ifNotExists?: boolean;
  json?: boolean;
}

export async function run({ args, opts, globals }: Invocation<Options>): Promise<void> {
  const email = String(args[0]);
  const target = signedIn(globals);
  const organizationId = await orgIdOf(target, opts.org);
  // Re-running a provisioning script must not fail on someone already invited or already in.
  if (opts.ifNotExists) {
    const lowered = email.toLowerCase();
    const member = (await listMembers(target, organizationId)).find((m) => m.user.email.toLowerCase() === lowered);
    const pending = (await listInvitations(target, organizationId)).find(
      (i) => i.status === 'pending' && i.email.toLowerCase() === lowered,
    );
    if (member || pending) {
      const state = member ? { member, invited: false } : { invitation: pending, invited: false };
      if (opts.json) printJson(state);
      else info(`${email} is already ${member ? 'a member' : 'invited'}; nothing changed.`);
      return;
    }
  }
  // Names are resolved only when an invitation is to be sent, so an already-invited address costs no team lookup.
  const teamIds = opts.team && opts.team.length > 0 ? await resolveTeamIds(target, opts.team, organizationId) : [];
  const invitation = await call<InvitationWire>(target, 'POST', '/api/auth/organization/invite-member', {
    body: {
      email,
      role: opts.role,
      ...(organizationId ? { organizationId } : {}),
      ...(teamIds.length === 1 ? { teamId: teamIds[0] } : teamIds.length > 1 ? { teamId: teamIds } : {}),
    },
  });
  if (opts.json) {
    printJson({ invitation, invited: true });
    return;
  }
  printLine(invitation.id);
  info(`Invited ${invitation.email} as ${invitation.role}; they accept with \`till org accept ${invitation.id}\`.`);
}
