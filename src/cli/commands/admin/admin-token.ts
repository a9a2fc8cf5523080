import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultDataDir } from '../../../core/config/index.js';
import { adminToken } from '../../../core/kernel/crypto.js';
import { CliError, NotSignedInError } from '../../errors.js';

/**
 * The admin token is derived from the daemon's secret, so whoever can read that secret can administer the daemon.
 * The secret file is only read, never created: a missing file means this is not the daemon's machine.
 */
export function resolveAdminToken(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TILL_ADMIN_TOKEN) return env.TILL_ADMIN_TOKEN;
  if (env.TILL_SECRET) return adminToken(env.TILL_SECRET);
  const file = join(defaultDataDir(env), 'secret');
  let secret: string;
  try {
    secret = readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new NotSignedInError(
        `no admin token: set TILL_ADMIN_TOKEN or TILL_SECRET, or run this beside the daemon's data dir (${file} does not exist)`,
      );
    }
    throw new CliError(`cannot read the daemon's secret at ${file}: ${(error as Error).message}`);
  }
  if (!secret) throw new CliError(`the daemon's secret file ${file} is empty`);
  return adminToken(secret);
}
