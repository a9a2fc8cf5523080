import { createAuthService, type AuthService } from './auth/service.js';
import { createPasswordHasher, type PasswordHasher } from './auth/password-hasher.js';
import { createSessionService, type SessionService } from './auth/sessions.js';
import type { Clock } from './kernel/clock.js';
import { systemClock } from './kernel/clock.js';
import type { TillConfig } from './kernel/config.js';
import { InvalidationBus } from './kernel/invalidation.js';
import type { Db } from './kernel/db.js';

/** Everything a request handler or worker needs, built once per daemon. Tests build it with their own clock. */
export interface CoreContext {
  config: TillConfig;
  db: Db;
  clock: Clock;
  hasher: PasswordHasher;
  /** Tells other daemons on the same PostgreSQL what changed; started by the daemon, not by createCore. */
  bus: InvalidationBus;
  sessions: SessionService;
  auth: AuthService;
}

export function createCore(options: { config: TillConfig; db: Db; clock?: Clock; hasher?: PasswordHasher }): CoreContext {
  const { config, db } = options;
  const clock = options.clock ?? systemClock;
  const hasher = options.hasher ?? createPasswordHasher({ cost: config.bcryptCost, workers: config.hashWorkers });
  // The bus's handlers reach the session cache through `sessions`, which exists by the time any arrive.
  let sessions: SessionService;
  const bus = new InvalidationBus(config.databaseUrl, {
    onKey: (key) => sessions.forgetKey(key),
    onReset: () => sessions.clearCache(),
  });
  sessions = createSessionService({ db, clock, session: config.session, bus });
  const auth = createAuthService({ db, clock, config, hasher, sessions });
  return { config, db, clock, hasher, bus, sessions, auth };
}
