import { loadConfig } from '../../../core/config/index.js';
import { DatabaseLockedError } from '../../../core/database/index.js';
import { startDaemon, type RunningDaemon } from '../../../daemon/server.js';
import type { Invocation } from '../../action.js';
import { CliError } from '../../errors.js';
import { info } from '../../output.js';

/** Knex may hand back a connection error wrapped in its own; the lock error is looked for along the causes. */
function findLockError(error: unknown): DatabaseLockedError | null {
  for (let current = error; current; current = (current as { cause?: unknown }).cause) {
    if (current instanceof DatabaseLockedError) return current;
  }
  return null;
}

export async function run(_invocation: Invocation): Promise<void> {
  // A ConfigError propagates: index.ts reports it as a usage problem (exit 2).
  const config = loadConfig(process.env);
  let daemon: RunningDaemon;
  try {
    // With TILL_PORT=0 the base URL (and so the trusted origin) can only be known once the port is bound.
    daemon = await startDaemon({ config, baseUrlFromListener: config.port === 0 && !process.env.TILL_BASE_URL });
  } catch (error) {
    const locked = findLockError(error);
    if (locked) throw new CliError(locked.message);
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new CliError(
        `cannot listen on ${config.host}:${config.port}: the address is already in use (set TILL_PORT to another port)`,
      );
    }
    throw error;
  }
  const baseUrl = daemon.core.config.baseUrl;
  info(`listening on ${daemon.url}${baseUrl !== daemon.url ? ` (public URL ${baseUrl})` : ''}`);
  await new Promise<void>((resolve, reject) => {
    const shutDown = (signal: NodeJS.Signals) => {
      // `once` handlers: a second Ctrl-C meets Node's default handler and ends the process without waiting.
      info(`${signal} received; finishing requests and shutting down`);
      daemon.close().then(resolve, reject);
    };
    process.once('SIGINT', shutDown);
    process.once('SIGTERM', shutDown);
  });
  info('stopped');
}
