import { ConfigError } from '../core/config/index.js';
import { CRASH_POINTS, noCrash, type CrashHook, type CrashPoint } from '../core/kernel/crash.js';

/**
 * Test-only: TILL_TEST_CRASH_AT=<point> makes the daemon kill itself with SIGKILL (no cleanup, as a power cut or the
 * OOM killer would) when it reaches that point (kernel/crash.ts). Read once at start; unset, the hook does nothing.
 */
export function crashHookFromEnv(env: NodeJS.ProcessEnv): CrashHook {
  const at = env.TILL_TEST_CRASH_AT;
  if (!at) return noCrash;
  if (!(CRASH_POINTS as readonly string[]).includes(at))
    throw new ConfigError(`TILL_TEST_CRASH_AT must be one of ${CRASH_POINTS.join(', ')}`);
  return (point: CrashPoint) => {
    if (point === at) process.kill(process.pid, 'SIGKILL');
  };
}
