import type Router from '@koa/router';
import type { AuthRouteDeps } from '../deps.js';
import { invitationRoutes } from './invitations.js';
import { memberRoutes } from './members.js';
import { organizationCrudRoutes } from './organizations.js';
import { teamRoutes } from './teams.js';

/** Better Auth's organization plugin under /api/auth/organization (contract §6.4). */
export function organizationRoutes(router: Router, deps: AuthRouteDeps): void {
  organizationCrudRoutes(router, deps);
  memberRoutes(router, deps);
  invitationRoutes(router, deps);
  teamRoutes(router, deps);
}
