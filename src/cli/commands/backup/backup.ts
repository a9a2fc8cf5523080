import { createWriteStream, existsSync } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { request } from 'undici';
import type { Invocation } from '../../action.js';
import { CliError } from '../../errors.js';
import { info, printJson } from '../../output.js';
import { resolveTarget } from '../../target.js';
import { resolveAdminToken } from '../admin/admin-token.js';

export async function run({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const file = resolve(String(args[0]));
  if (existsSync(file)) throw new CliError(`${file} already exists; name a new file`);
  const target = resolveTarget(globals);
  const token = resolveAdminToken();
  let response: Awaited<ReturnType<typeof request>>;
  try {
    response = await request(`${target.url}/api/admin/backup`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'user-agent': `till-cli (node ${process.version})` },
      headersTimeout: 10 * 60_000,
      bodyTimeout: 10 * 60_000,
    });
  } catch (error) {
    throw new CliError(`cannot reach the daemon at ${target.url}: ${(error as Error).message}`);
  }
  if (response.statusCode !== 200) {
    const text = await response.body.text();
    let message = text;
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? text;
    } catch {
      // Not JSON: the text as it came.
    }
    throw new CliError(`backup failed (HTTP ${response.statusCode}): ${message || 'no message'}`);
  }
  // Written beside the target and renamed once complete, so a failed copy never looks like a backup.
  const partial = `${file}.partial`;
  try {
    await pipeline(response.body, createWriteStream(partial, { flags: 'wx', mode: 0o600 }));
    await rename(partial, file);
  } catch (error) {
    await rm(partial, { force: true });
    throw new CliError(`backup failed while writing ${file}: ${(error as Error).message}`);
  }
  const bytes = (await stat(file)).size;
  if (opts.json) printJson({ file, bytes });
  else info(`backed up ${bytes} bytes to ${file}`);
}
