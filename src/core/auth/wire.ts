import type { Session, User } from './repository.js';
import type { SessionWire, UserWire } from './schemas.js';

export function userToWire(user: User): UserWire {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    emailVerified: user.emailVerified,
    image: user.image,
    createdAt: user.createdAt.toISOString(),
    updatedAt: user.updatedAt.toISOString(),
  };
}

/**
 * `token` is the bearer token when the caller holds it, and the stored digest otherwise (it still revokes).
 * With teams on Better Auth's session always carries `activeTeamId` (null when unset), so `teams` keeps it present.
 */
export function sessionToWire(session: Session, token: string, teams = false): SessionWire {
  return {
    id: session.id,
    token,
    userId: session.userId,
    expiresAt: session.expiresAt.toISOString(),
    createdAt: session.createdAt.toISOString(),
    updatedAt: session.updatedAt.toISOString(),
    ipAddress: session.ipAddress,
    userAgent: session.userAgent,
    activeOrganizationId: session.activeOrganizationId,
    ...(teams || session.activeTeamId !== null ? { activeTeamId: session.activeTeamId } : {}),
  };
}
