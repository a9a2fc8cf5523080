import { afterAll, beforeAll } from 'vitest';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { loadConfig, type TillConfig } from '../../src/core/kernel/config.js';
import { createLogger } from '../../src/daemon/logger.js';
import { startDaemon, type RunningDaemon } from '../../src/daemon/server.js';
import { createTestDatabase, type TestDatabase } from './database.js';

export const TEST_SECRET = 'test-secret-that-is-long-enough-0123456789';

export interface TestDaemon extends RunningDaemon {
  clock: ManualClock;
  database: TestDatabase;
  config: TillConfig;
  stop(): Promise<void>;
}

/**
 * A real daemon on 127.0.0.1, port 0, on a fresh database, with a clock the test moves. Rate limiting is off
 * unless a test turns it on, and bcrypt runs at its lowest cost so suites do not spend minutes hashing.
 */
export async function startTestDaemon(overrides: Partial<TillConfig> = {}, options: { clock?: ManualClock } = {}): Promise<TestDaemon> {
  // A second daemon on another daemon's database (PostgreSQL: several daemons share one) leaves dropping to its owner.
  const database: TestDatabase = overrides.databaseUrl
    ? { url: overrides.databaseUrl, dialect: overrides.databaseUrl.startsWith('postgres') ? 'postgres' : 'sqlite', drop: async () => undefined }
    : await createTestDatabase();
  const clock = options.clock ?? new ManualClock(new Date('2026-11-21T12:00:00.000Z'));
  const base = loadConfig(
    {},
    {
      dataDir: '/nonexistent-till-test-data-dir',
      databaseUrl: database.url,
      host: '127.0.0.1',
      port: 0,
      secret: TEST_SECRET,
      rateLimit: false,
      bcryptCost: 4,
      hashWorkers: 1,
      ...overrides,
    },
  );
  let daemon: RunningDaemon;
  try {
    daemon = await startDaemon({
      config: base,
      clock,
      logger: process.env.TILL_TEST_LOG ? createLogger('debug') : createLogger('error', () => undefined),
      baseUrlFromListener: !overrides.baseUrl,
    });
  } catch (error) {
    await database.drop();
    throw error;
  }
  return {
    ...daemon,
    clock,
    database,
    config: daemon.core.config,
    async stop() {
      await daemon.close();
      await database.drop();
    },
  };
}

/**
 * One daemon for a whole test file: started before its tests, stopped after. Returns a getter, since the daemon
 * exists only once beforeAll has run.
 */
export function useTestDaemon(overrides: Partial<TillConfig> = {}): () => TestDaemon {
  let daemon: TestDaemon | undefined;
  beforeAll(async () => {
    daemon = await startTestDaemon(overrides);
  });
  afterAll(async () => {
    await daemon?.stop();
  });
  return () => {
    if (!daemon) throw new Error('the test daemon is not running (use it inside a test)');
    return daemon;
  };
}
