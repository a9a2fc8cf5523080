import type { Invocation } from '../../action.js';
import { call } from '../../client.js';
import { printJson, printTable } from '../../output.js';
import { orgIdOf, signedIn, type InvitationWire } from './shared.js';

interface Options {
  org?: string;
  mine?: boolean;
  json?: boolean;
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  const target = signedIn(globals);
  let invitations: InvitationWire[];
  // --mine is what an invitee needs: the ids to accept, which the organization's list does not show them.
  if (opts.mine) invitations = await call<InvitationWire[]>(target, 'GET', '/api/auth/organization/list-user-invitations');
  else {
    const organizationId = await orgIdOf(target, opts.org);
    const query = organizationId ? `?organizationId=${encodeURIComponent(organizationId)}` : '';
    invitations = await call<InvitationWire[]>(target, 'GET', `/api/auth/organization/list-invitations${query}`);
  }
  if (opts.json) {
    printJson(invitations);
    return;
  }
  printTable(['ID', 'EMAIL', 'ROLE', 'STATUS', 'EXPIRES'], invitations.map((i) => [i.id, i.email, i.role, i.status, i.expiresAt]));
}
