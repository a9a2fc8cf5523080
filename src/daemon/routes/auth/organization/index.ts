import type { AuthApi } from '../route.js';
import { invitationRoutes } from './invitations.js';
import { memberRoutes } from './members.js';
import { organizationCrudRoutes } from './organizations.js';
import { teamRoutes } from './teams.js';

/** Better Auth's organization plugin under /api/auth/organization (contract §6.4). */
export function organizationRoutes(api: AuthApi): void {
  organizationCrudRoutes(api);
  memberRoutes(api);
  invitationRoutes(api);
  teamRoutes(api);
}
