import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import type { TillConfig } from '../../../core/config/index.js';

export interface DaemonFiles {
  dataDir: string;
  pidFile: string;
  logFile: string;
  /** Where the daemon of the pid file listens, as `{pid, url}`: the settings of a later command may differ. */
  stateFile: string;
}

export function daemonFiles(dataDir: string): DaemonFiles {
  return {
    dataDir,
    pidFile: join(dataDir, 'daemon.pid'),
    logFile: join(dataDir, 'daemon.log'),
    stateFile: join(dataDir, 'daemon.json'),
  };
}

/**
 * glibc's allocator gives each thread that contends for it an arena of its own, up to eight per core, and keeps what
 * it freed in each. The daemon's threads (the thread pool, V8's helpers) left about 100 MB of such free memory in the
 * process after bench/events' load; two arenas cut its RSS from 357 to 284 MB on SQLite and from 400 to 296 MB on
 * PostgreSQL, at the same rate. glibc reads the setting only when a process starts, so the launchers set it: `till
 * daemon start` here, `npm start` and the Docker image alike. A value the caller set wins.
 */
const MALLOC_ARENA_MAX = '2';

export function daemonEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return env.MALLOC_ARENA_MAX === undefined ? { ...env, MALLOC_ARENA_MAX } : env;
}

export function writeState(files: DaemonFiles, pid: number, url: string): void {
  writeFileSync(files.pidFile, `${pid}\n`, { mode: 0o600 });
  writeFileSync(files.stateFile, `${JSON.stringify({ pid, url })}\n`, { mode: 0o600 });
}

/** The URL the daemon with this pid was started on, if its state file says so. */
export function readStateUrl(files: DaemonFiles, pid: number): string | null {
  try {
    const state = JSON.parse(readFileSync(files.stateFile, 'utf8')) as { pid?: unknown; url?: unknown };
    return state.pid === pid && typeof state.url === 'string' ? state.url : null;
  } catch {
    return null;
  }
}

export function readPid(pidFile: string): number | null {
  try {
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

export function removePidFile(files: DaemonFiles): void {
  rmSync(files.pidFile, { force: true });
  rmSync(files.stateFile, { force: true });
}

/**
 * True while the process exists and is not a zombie. A detached daemon is re-parented to whatever reaps orphans;
 * where that reaper is slow (or, in some containers, absent) the exited process lingers as a zombie, which
 * `kill(pid, 0)` still reports as present.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true;
  }
}

/** A pid file can outlive its process and the pid be reused; where /proc exists, check it is still a daemon. */
export function isDaemonProcess(pid: number): boolean {
  if (!isAlive(pid)) return false;
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return argv.some((arg, index) => arg === 'daemon' && argv[index + 1] === 'run');
  } catch {
    return true;
  }
}

/** Where this machine reaches the daemon: a wildcard listen address is reached over loopback. */
export function localUrl(config: Pick<TillConfig, 'host' | 'port'>): string {
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '::1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

/** Whether a Till daemon answers its health route at url. */
export async function probe(url: string): Promise<boolean> {
  try {
    const response = await request(`${url}/api/auth/ok`, { headersTimeout: 2_000, bodyTimeout: 2_000, reset: true });
    const body = await response.body.text();
    return response.statusCode === 200 && body.includes('"ok"');
  } catch {
    return false;
  }
}

/** Polls until check() is true or the deadline passes; returns whether it became true. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  intervalMs = 100,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(intervalMs);
  }
}
