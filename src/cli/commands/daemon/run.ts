import { loadConfig, type TillConfig } from '../../../core/config/index.js';
import { DatabaseLockedError } from '../../../core/database/index.js';
import { createLogger, type Logger } from '../../../daemon/logger.js';
import { startDaemon, type RunningDaemon } from '../../../daemon/server.js';
import type { Invocation } from '../../action.js';
import { CliError, EXIT } from '../../errors.js';

/** Knex may hand back a connection error wrapped in its own; the lock error is looked for along the causes. */
function findLockError(error: unknown): DatabaseLockedError | null {
  for (let current = error; current; current = (current as { cause?: unknown }).cause) {
    if (current instanceof DatabaseLockedError) return current;
  }
  return null;
}

async function start(config: TillConfig, logger: Logger): Promise<RunningDaemon> {
  try {
    // With TILL_PORT=0 the base URL (and so the trusted origin) can only be known once the port is bound.
    return await startDaemon({
      config,
      logger,
      baseUrlFromListener: config.port === 0 && !process.env.TILL_BASE_URL,
    });
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
}

/**
 * The daemon's output is its log, one JSON line per entry, in the foreground too. Started by `till daemon start`
 * (`--detached`, with stdout and stderr going to daemon.log), a failure to start is a log entry as well, and
 * Node's own warnings and a crash are written as entries instead of Node's free text.
 */
export async function run({ opts }: Invocation<{ detached?: boolean }>): Promise<number> {
  const detached = opts.detached === true;
  // Starting, stopping and failing to start are always written, whatever TILL_LOG_LEVEL filters out.
  const lifecycle = createLogger('info');
  let logger = lifecycle;
  let config: TillConfig;
  let daemon: RunningDaemon;
  if (detached) {
    process.on('warning', (warning) => logger.warn(warning.message, { warning: warning.name }));
    process.on('uncaughtException', (error) => {
      logger.error('uncaught exception; exiting', { error: error.stack ?? String(error) });
      process.exit(EXIT.failure);
    });
  }
  try {
    // A ConfigError propagates: index.ts reports it as a usage problem (exit 2).
    config = loadConfig(process.env);
    logger = createLogger(config.logLevel);
    daemon = await start(config, logger);
  } catch (error) {
    if (!detached) throw error;
    const configError = (error as Error | undefined)?.name === 'ConfigError';
    lifecycle.error(`the daemon could not start: ${error instanceof Error ? error.message : String(error)}`);
    return configError ? EXIT.usage : EXIT.failure;
  }
  const baseUrl = daemon.core.config.baseUrl;
  lifecycle.info(`listening on ${daemon.url}`, { url: daemon.url, ...(baseUrl !== daemon.url ? { baseUrl } : {}) });
  await new Promise<void>((resolve, reject) => {
    const shutDown = (signal: NodeJS.Signals) => {
      // `once` handlers: a second Ctrl-C meets Node's default handler and ends the process without waiting.
      lifecycle.info(`${signal} received; finishing requests and shutting down`, { signal });
      daemon.close().then(resolve, reject);
    };
    process.once('SIGINT', shutDown);
    process.once('SIGTERM', shutDown);
  });
  lifecycle.info('stopped');
  return EXIT.ok;
}
