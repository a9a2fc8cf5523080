import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { request } from 'undici';
import { TILL_BIN, freePort } from '../cli/till.js';
import { TEST_SECRET, type TestDaemon } from './daemon.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { until } from './webhooks.js';

/**
 * A real daemon process (the built dist/) on a fresh test database, which a test can start again and again on the
 * same data: for the crash tests, whose daemons die by SIGKILL at a named step (TILL_TEST_CRASH_AT) and must leave
 * the next one nothing to do twice.
 */
export interface CrashableDaemon {
  database: TestDatabase;
  databaseUrl: string;
  url: string;
  daemon: TestDaemon;
  /**
   * Starts a daemon with these extra variables and waits until it answers. Wrapped in an object: an execa child is
   * a thenable, and a promise resolving to it would wait for it to exit.
   */
  start(env?: Record<string, string>): Promise<{ process: ResultPromise }>;
  /** The running daemon, if any: a test sets it to null once it has seen it exit. */
  child: ResultPromise | null;
  /** Kills what still runs, removes the data folder and drops the database. */
  dispose(): Promise<void>;
}

export async function crashableDaemon(prefix: string, baseEnv: Record<string, string> = {}): Promise<CrashableDaemon> {
  const database = await createTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const databaseUrl = database.dialect === 'sqlite' ? `sqlite:${join(dataDir, 'till.db')}` : database.url;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const handle: CrashableDaemon = {
    database,
    databaseUrl,
    url,
    daemon: { url } as TestDaemon,
    child: null,
    async start(env = {}) {
      const started = execa(process.execPath, [TILL_BIN, 'daemon', 'run'], {
        env: {
          PATH: process.env.PATH!,
          TILL_DATA_DIR: dataDir,
          TILL_DATABASE_URL: databaseUrl,
          TILL_PORT: String(port),
          TILL_SECRET: TEST_SECRET,
          TILL_BCRYPT_COST: '4',
          TILL_RATE_LIMIT: 'off',
          ...baseEnv,
          ...env,
        },
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
      });
      handle.child = started;
      await until(async () => {
        const answer = await request(`${url}/api/auth/ok`, { headersTimeout: 1000, bodyTimeout: 1000 }).catch(
          () => null,
        );
        await answer?.body.dump();
        return answer?.statusCode === 200;
      });
      return { process: started };
    },
    async dispose() {
      if (handle.child) {
        handle.child.kill('SIGKILL');
        await handle.child;
        handle.child = null;
      }
      rmSync(dataDir, { recursive: true, force: true });
      await database.drop();
    },
  };
  return handle;
}
