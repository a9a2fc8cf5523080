import type { InvitationWire } from '../../../core/organizations/schemas.js';
import type { Invocation } from '../../action.js';
import { call, orgIdOf, signedIn } from '../../context.js';
import { printJson, printTable } from '../../output.js';
import { listInvitations } from './members.js';

interface Options {
  org?: string;
  mine?: boolean;
  json?: boolean;
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  const target = signedIn(globals);
  // --mine is what an invitee needs: the ids to accept, which the organization's list does not show them.
  const invitations = opts.mine
    ? await call<InvitationWire[]>(target, 'GET', '/api/auth/organization/list-user-invitations')
    : await listInvitations(target, await orgIdOf(target, opts.org));
  if (opts.json) {
    printJson(invitations);
    return;
  }
  printTable(
    ['ID', 'EMAIL', 'ROLE', 'STATUS', 'EXPIRES'],
    invitations.map((i) => [i.id, i.email, i.role ?? '', i.status, i.expiresAt]),
  );
}
