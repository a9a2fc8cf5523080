import type { LogLevel } from '../core/config/index.js';
import { currentRequestId } from '../core/kernel/request-context.js';

const ORDER: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

export interface Logger {
  error(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  debug(message: string, fields?: Record<string, unknown>): void;
}

/**
 * One JSON line per entry on stderr. Callers never pass secrets (tokens, passwords, cookies) as fields. A line written
 * while handling a request, or a worker job a request caused, carries that request's id.
 */
export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => process.stderr.write(line),
): Logger {
  const log =
    (entryLevel: LogLevel) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      if (ORDER[entryLevel] > ORDER[level]) return;
      const requestId = currentRequestId();
      const entry = { time: new Date().toISOString(), level: entryLevel, message, ...(requestId ? { requestId } : {}) };
      write(`${JSON.stringify({ ...entry, ...fields })}\n`);
    };
  return { error: log('error'), warn: log('warn'), info: log('info'), debug: log('debug') };
}
