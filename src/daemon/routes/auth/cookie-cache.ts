import { authError } from '../../../core/auth/errors.js';
import type { AuthRouteDeps } from './deps.js';

/**
 * With the cookie cache on, session and user travel in a cookie that must stay under 4093 characters. The check
 * runs before a change is written, so an over-long name or image is refused instead of saved and then unusable.
 */
export function assertFitsCookieCache(
  deps: AuthRouteDeps,
  user: { name: string; email: string; image: string | null },
): void {
  if (!deps.core.config.session.cookieCache.enabled) return;
  const now = deps.core.clock.now();
  const iso = now.toISOString();
  const id = 'x'.repeat(32);
  const value = deps.cookies.sessionDataValue(
    {
      id,
      token: id,
      userId: id,
      expiresAt: iso,
      createdAt: iso,
      updatedAt: iso,
      ipAddress: 'x'.repeat(45),
      userAgent: 'x'.repeat(256),
      activeOrganizationId: id,
    },
    { id, name: user.name, email: user.email, emailVerified: false, image: user.image, createdAt: iso, updatedAt: iso },
    now.getTime(),
  );
  if (value === null) throw authError(400, 'SESSION_DATA_TOO_LARGE');
}
