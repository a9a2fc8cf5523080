import {
  activeMemberRoleQuery,
  listMembersQuery,
  organizationIdBody,
  removeMemberBody,
  updateMemberRoleBody,
} from '../../../../core/organizations/schemas.js';
import { memberToWire, memberWithUserToWire } from '../../../../core/organizations/wire.js';
import type { AuthApi } from '../route.js';

export function memberRoutes(api: AuthApi): void {
  const members = api.deps.core.organizations.members;

  api.route(
    { method: 'get', path: '/organization/list-members', caller: 'session', query: listMembersQuery },
    async ({ actor, query }) => {
      const listed = await members.list(actor, query);
      return { members: listed.members.map(memberWithUserToWire), total: listed.total };
    },
  );

  api.route({ method: 'get', path: '/organization/get-active-member', caller: 'session' }, async ({ actor }) =>
    memberWithUserToWire(await members.active(actor)),
  );

  api.route(
    { method: 'get', path: '/organization/get-active-member-role', caller: 'session', query: activeMemberRoleQuery },
    async ({ actor, query }) => ({
      role: await members.activeRole(actor, query),
    }),
  );

  api.route(
    { method: 'post', path: '/organization/update-member-role', caller: 'session', body: updateMemberRoleBody },
    async ({ actor, body }) => memberToWire(await members.updateRole(actor, body)),
  );

  api.route(
    { method: 'post', path: '/organization/remove-member', caller: 'session', body: removeMemberBody },
    async ({ actor, body }) => {
      const removed = memberWithUserToWire(await members.remove(actor, body));
      // Better Auth's remove-member answer carries the user without the image.
      return {
        member: { ...removed, user: { id: removed.user.id, name: removed.user.name, email: removed.user.email } },
      };
    },
  );

  api.route(
    { method: 'post', path: '/organization/leave', caller: 'session', body: organizationIdBody },
    async ({ actor, body }) => memberWithUserToWire(await members.leave(actor, body.organizationId)),
  );
}
