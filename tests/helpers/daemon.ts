import type { Strategies } from '../../src/core/benefit-grants/strategies.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { ManualClock } from '../../src/core/kernel/clock.js';
import type { PaymentProcessor } from '../../src/core/payments/processor.js';
import { loadConfig, type TillConfig } from '../../src/core/config/index.js';
import { createLogger, type Logger } from '../../src/daemon/logger.js';
import type { ServerLimits } from '../../src/daemon/limits.js';
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
export async function startTestDaemon(
  overrides: Partial<TillConfig> = {},
  options: {
    clock?: ManualClock;
    paymentProcessor?: PaymentProcessor;
    limits?: Partial<ServerLimits>;
    grantStrategies?: Strategies;
    /** The daemon's log (by default silent unless TILL_TEST_LOG is set), for tests about what it logs. */
    logger?: Logger;
  } = {},
): Promise<TestDaemon> {
  // A second daemon on another daemon's database (PostgreSQL: several daemons share one) leaves dropping to its owner.
  const database: TestDatabase = overrides.databaseUrl
    ? {
        url: overrides.databaseUrl,
        dialect: overrides.databaseUrl.startsWith('postgres') ? 'postgres' : 'sqlite',
        drop: async () => undefined,
      }
    : await createTestDatabase();
  const clock = options.clock ?? new ManualClock(new Date('2026-11-21T12:00:00.000Z'));
  // Uploaded files go to a directory of the daemon's own, removed when it stops.
  const filesDir = overrides.files ? null : mkdtempSync(join(tmpdir(), 'till-test-files-'));
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
      ...(filesDir ? { files: { dir: filesDir, maxBytes: 1024 ** 3 } } : {}),
      ...overrides,
    },
  );
  let daemon: RunningDaemon;
  try {
    daemon = await startDaemon({
      config: base,
      // Under TILL_CLOCK=simulated the daemon keeps its own clock in the database; `clock` is then left unused.
      clock: base.clock === 'simulated' ? undefined : clock,
      logger:
        options.logger ?? (process.env.TILL_TEST_LOG ? createLogger('debug') : createLogger('error', () => undefined)),
      baseUrlFromListener: !overrides.baseUrl,
      paymentProcessor: options.paymentProcessor,
      limits: options.limits,
      grantStrategies: options.grantStrategies,
    });
  } catch (error) {
    await database.drop();
    if (filesDir) rmSync(filesDir, { recursive: true, force: true });
    throw error;
  }
  const removeFiles = () => {
    if (filesDir) rmSync(filesDir, { recursive: true, force: true });
  };
  return {
    ...daemon,
    clock,
    database,
    config: daemon.core.config,
    // A second daemon on another's database is closed, not stopped (its database is not its own): its files go too.
    async close() {
      await daemon.close();
      removeFiles();
    },
    async stop() {
      await daemon.close();
      await database.drop();
      removeFiles();
    },
  };
}

/**
 * One daemon for a whole test file: started before its tests, stopped after. Returns a getter, since the daemon
 * exists only once beforeAll has run.
 */
export function useTestDaemon(
  overrides: Partial<TillConfig> = {},
  options: { paymentProcessor?: PaymentProcessor } = {},
): () => TestDaemon {
  let daemon: TestDaemon | undefined;
  beforeAll(async () => {
    daemon = await startTestDaemon(overrides, options);
  });
  afterAll(async () => {
    await daemon?.stop();
  });
  return () => {
    if (!daemon) throw new Error('the test daemon is not running (use it inside a test)');
    return daemon;
  };
}
