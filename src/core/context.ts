import { createAuthService, type AuthService } from './auth/service.js';
import { createPasswordHasher, type PasswordHasher } from './auth/password-hasher.js';
import { createSessionService, type SessionService } from './auth/sessions.js';
import type { Clock } from './kernel/clock.js';
import { systemClock } from './kernel/clock.js';
import type { TillConfig } from './kernel/config.js';
import type { Db } from './kernel/db.js';

/** Everything a request handler or worker needs, built once per daemon. Tests build it with their own clock. */
export interface CoreContext {
  config: TillConfig;
  db: Db;
  clock: Clock;
  hasher: PasswordHasher;
  sessions: SessionService;
  auth: AuthService;
}

export function createCore(options: { config: TillConfig; db: Db; clock?: Clock; hasher?: PasswordHasher }): CoreContext {
  const { config, db } = options;
  const clock = options.clock ?? systemClock;
  const hasher = options.hasher ?? createPasswordHasher({ cost: config.bcryptCost, workers: config.hashWorkers });
  const sessions = createSessionService({ db, clock, session: config.session });
  const auth = createAuthService({ db, clock, config, hasher, sessions });
  return { config, db, clock, hasher, sessions, auth };
}
