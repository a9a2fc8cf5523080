import { ConfigError } from './errors.js';

/**
 * Where `GET /metrics` answers (TILL_METRICS): `admin` (the default) on the public listener behind the admin token,
 * `off`, or `<host>:<port>` on a listener of its own without authentication, for a scraper on a private network.
 */
export type MetricsConfig = { mode: 'admin' } | { mode: 'off' } | { mode: 'listen'; host: string; port: number };

export function loadMetricsConfig(value: string | undefined): MetricsConfig {
  if (value === undefined || value === '' || value === 'admin') return { mode: 'admin' };
  if (value === 'off') return { mode: 'off' };
  // `[::1]:9464` for IPv6, `127.0.0.1:9464` or `0.0.0.0:9464` otherwise.
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(value);
  const port = match ? Number(match[3]) : NaN;
  if (!match || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError(`TILL_METRICS must be admin, off or <host>:<port> (got "${value}")`);
  return { mode: 'listen', host: match[1] ?? match[2]!, port };
}
