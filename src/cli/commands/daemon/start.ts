import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../../core/config/index.js';
import type { Invocation } from '../../action.js';
import { CliError, UsageError } from '../../errors.js';
import { info, printJson } from '../../output.js';
import {
  daemonEnvironment,
  daemonFiles,
  isDaemonProcess,
  localUrl,
  probe,
  readPid,
  readStateUrl,
  removePidFile,
  waitFor,
  writeState,
} from './process.js';

// The daemon's first start includes migrations and a bcrypt warm-up; generous, since failing early helps nobody.
const READY_TIMEOUT_MS = 60_000;
const LOG_TAIL_LINES = 20;
const CLI_ENTRY = fileURLToPath(new URL('../../index.js', import.meta.url));

/** The log's last entries, each as its level and message (the log is JSON lines, read here by a person). */
function logTail(file: string, fromOffset: number): string {
  let text: string;
  try {
    text = readFileSync(file).subarray(fromOffset).toString('utf8').trimEnd();
  } catch {
    return '';
  }
  const lines = text ? text.split('\n').slice(-LOG_TAIL_LINES) : [];
  return lines
    .map((line) => {
      try {
        const entry = JSON.parse(line) as { level?: unknown; message?: unknown };
        return `${String(entry.level)}: ${String(entry.message)}`;
      } catch {
        return line;
      }
    })
    .join('\n');
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

export async function run({ opts }: Invocation<{ json?: boolean }>): Promise<void> {
  // Checked here as well as in the child, so bad settings are reported as such (exit 2) and not as a crash.
  const config = loadConfig(process.env);
  if (config.port === 0)
    throw new UsageError('`till daemon start` needs a fixed port; TILL_PORT=0 would pick one nobody can find');
  const files = daemonFiles(config.dataDir);
  const url = localUrl(config);
  const report = (pid: number, alreadyRunning: boolean) => {
    if (opts.json) printJson({ running: true, alreadyRunning, pid, url, ...files });
    else
      info(
        alreadyRunning
          ? `already running (pid ${pid}) at ${url}`
          : `started (pid ${pid}), listening on ${url}; log: ${files.logFile}`,
      );
  };

  const existing = readPid(files.pidFile);
  if (existing && isDaemonProcess(existing)) {
    // One daemon per data dir: asked for another address, saying "already running" there would be untrue.
    const runningAt = readStateUrl(files, existing) ?? url;
    if (runningAt !== url)
      throw new CliError(
        `already running at ${runningAt} (pid ${existing}), not at ${url}: one daemon per data dir ` +
          `(${config.dataDir}); stop it first (\`till daemon stop\`), or give the second one its own TILL_DATA_DIR`,
      );
    return report(existing, true);
  }
  if (await probe(url))
    throw new CliError(`something already answers at ${url}; a daemon with another data dir may be running there`);

  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const offset = sizeOf(files.logFile);
  const log = openSync(files.logFile, 'a', 0o600);
  // --no-warnings: the daemon logs Node's warnings itself, as JSON lines (see run.ts).
  const child = spawn(process.execPath, ['--no-warnings', CLI_ENTRY, 'daemon', 'run', '--detached'], {
    detached: true,
    stdio: ['ignore', log, log],
    env: daemonEnvironment(process.env),
  });
  closeSync(log);
  const state: { exited: string | null } = { exited: null };
  child.once(
    'exit',
    (code, signal) => (state.exited = signal ? `was killed by ${signal}` : `exited with code ${code}`),
  );
  child.once('error', (error) => (state.exited = `could not be started: ${error.message}`));
  if (child.pid !== undefined) writeState(files, child.pid, url);

  const answered = await waitFor(async () => state.exited !== null || (await probe(url)), READY_TIMEOUT_MS);
  if (!answered || state.exited !== null) {
    if (state.exited === null) child.kill('SIGTERM');
    removePidFile(files);
    const tail = logTail(files.logFile, offset);
    const what = state.exited
      ? `the daemon ${state.exited} before it answered`
      : `the daemon did not answer at ${url} within ${READY_TIMEOUT_MS / 1000} s and was stopped`;
    throw new CliError(`${what}${tail ? `; the end of ${files.logFile}:\n${tail}` : ` (see ${files.logFile})`}`);
  }
  // From here on the daemon lives on its own; this process may exit.
  child.unref();
  report(child.pid!, false);
}
