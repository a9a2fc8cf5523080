import { defaultDataDir } from '../../../core/config/index.js';
import type { Invocation } from '../../action.js';
import { CliError } from '../../errors.js';
import { info, printJson } from '../../output.js';
import { daemonFiles, isAlive, isDaemonProcess, readPid, removePidFile, waitFor } from './process.js';

// The daemon gives running requests and webhook deliveries 10 s before cutting connections, then closes the database.
const STOP_TIMEOUT_MS = 30_000;

export async function run({ opts }: Invocation<{ json?: boolean }>): Promise<void> {
  const files = daemonFiles(defaultDataDir(process.env));
  const pid = readPid(files.pidFile);
  if (!pid || !isDaemonProcess(pid)) {
    // Stopping what is not running is not an error: the wanted state holds. A stale pid file is cleaned up.
    removePidFile(files);
    if (opts.json) printJson({ stopped: false, wasRunning: false });
    else info('not running');
    return;
  }
  process.kill(pid, 'SIGTERM');
  if (!(await waitFor(() => !isAlive(pid), STOP_TIMEOUT_MS))) {
    throw new CliError(
      `the daemon (pid ${pid}) has not exited ${STOP_TIMEOUT_MS / 1000} s after SIGTERM; see ${files.logFile}, or end it with kill -KILL ${pid}`,
    );
  }
  removePidFile(files);
  if (opts.json) printJson({ stopped: true, wasRunning: true, pid });
  else info(`stopped (pid ${pid})`);
}
