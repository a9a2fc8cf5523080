import {
  getInvitationQuery,
  invitationIdBody,
  inviteMemberBody,
  listInvitationsQuery,
} from '../../../../core/organizations/schemas.js';
import { invitationToWire, memberToWire } from '../../../../core/organizations/wire.js';
import type { AuthApi } from '../route.js';

export function invitationRoutes(api: AuthApi): void {
  const invitations = api.deps.core.organizations.invitations;

  api.route(
    { method: 'post', path: '/organization/invite-member', caller: 'session', body: inviteMemberBody },
    async ({ actor, body }) => invitationToWire(await invitations.invite(actor, body)),
  );

  api.route(
    { method: 'post', path: '/organization/accept-invitation', caller: 'session', body: invitationIdBody },
    async ({ actor, body }) => {
      const accepted = await invitations.accept(actor, body.invitationId);
      return { invitation: invitationToWire(accepted.invitation), member: memberToWire(accepted.member) };
    },
  );

  api.route(
    { method: 'post', path: '/organization/reject-invitation', caller: 'session', body: invitationIdBody },
    async ({ actor, body }) => ({
      invitation: invitationToWire(await invitations.reject(actor, body.invitationId)),
      member: null,
    }),
  );

  api.route(
    { method: 'post', path: '/organization/cancel-invitation', caller: 'session', body: invitationIdBody },
    async ({ actor, body }) => invitationToWire(await invitations.cancel(actor, body.invitationId)),
  );

  // Better Auth's own wording here, without a code.
  api.route(
    {
      method: 'get',
      path: '/organization/get-invitation',
      caller: 'session',
      signedOut: 'not-authenticated',
      query: getInvitationQuery,
    },
    async ({ actor, query }) => {
      const found = await invitations.get(actor, query.id);
      return {
        ...invitationToWire(found.invitation),
        organizationName: found.organization.name,
        organizationSlug: found.organization.slug,
        inviterEmail: found.inviterEmail,
      };
    },
  );

  api.route(
    { method: 'get', path: '/organization/list-invitations', caller: 'session', query: listInvitationsQuery },
    async ({ actor, query }) =>
      (await invitations.listForOrganization(actor, query.organizationId)).map(invitationToWire),
  );

  api.route({ method: 'get', path: '/organization/list-user-invitations', caller: 'session' }, async ({ actor }) =>
    (await invitations.listForUser(actor)).map(invitationToWire),
  );
}
