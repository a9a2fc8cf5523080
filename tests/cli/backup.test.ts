import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../helpers/http.js';
import { freePort, PASSWORD, Sandbox } from './till.js';

const SECRET = 'backup-test-secret-that-is-long-enough-0123';
const sandboxes: Sandbox[] = [];
const strayPids: number[] = [];

afterAll(() => {
  for (const pid of strayPids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone, as it should be.
    }
  }
  for (const created of sandboxes) created.cleanup();
});

/** Starts `till daemon run` and resolves once it listens (wrapped: the process is a thenable that would be awaited). */
async function runDaemon(cli: Sandbox, env: Record<string, string>) {
  const daemon = cli.spawn(['daemon', 'run'], { env });
  strayPids.push(daemon.pid!);
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    daemon.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('listening on http://')) resolve();
    });
    daemon.once('exit', () => reject(new Error(`the daemon exited early: ${seen}`)));
  });
  return { process: daemon };
}

async function signUp(url: string, email: string): Promise<number> {
  const response = await request(`${url}/api/auth/sign-up/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ name: 'Backed Up', email, password: PASSWORD }),
  });
  await response.body.dump();
  return response.statusCode;
}

async function signIn(url: string, email: string): Promise<number> {
  const response = await request(`${url}/api/auth/sign-in/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  await response.body.dump();
  return response.statusCode;
}

// Real daemons on SQLite files whatever TILL_TEST_DATABASE_URL says: backup and restore are SQLite's.
describe('till backup | restore', () => {
  it('copies a running daemon under writes, refuses to restore over it, and restores into a fresh data dir', async () => {
    const cli = new Sandbox({ TILL_BCRYPT_COST: '4', TILL_HASH_WORKERS: '1', TILL_RATE_LIMIT: 'off' });
    sandboxes.push(cli);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = { TILL_DATA_DIR: join(cli.root, 'live'), TILL_PORT: String(port), TILL_SECRET: SECRET };
    const { process: daemon } = await runDaemon(cli, env);

    // Sign-ups keep coming while the backup is taken; those answered before it began must be in it.
    const before: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const email = uniqueEmail('before');
      expect(await signUp(url, email)).toBe(200);
      before.push(email);
    }
    let writing = true;
    let during = 0;
    const writer = (async () => {
      while (writing) if ((await signUp(url, uniqueEmail('during'))) === 200) during += 1;
    })();
    const file = join(cli.root, 'till-backup.db');
    const backup = await cli.run(['backup', file, '--url', url, '--json'], { env });
    writing = false;
    await writer;
    expect(backup.exitCode, backup.stderr).toBe(0);
    expect(backup.json.bytes).toBeGreaterThan(0);
    expect(during).toBeGreaterThan(0);
    // The daemon kept serving throughout, and a second backup to the same name is refused.
    expect(await signIn(url, before[0]!)).toBe(200);
    const again = await cli.run(['backup', file, '--url', url], { env });
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain('already exists');

    const busy = await cli.run(['restore', file], { env });
    expect(busy.exitCode).toBe(1);
    expect(busy.stderr).toContain('stop it first');

    daemon.kill('SIGTERM');
    expect((await daemon).exitCode).toBe(0);

    // Not a Till database: refused, and the fresh data dir is left without a database.
    const fresh = { ...env, TILL_DATA_DIR: join(cli.root, 'fresh') };
    const junk = join(cli.root, 'junk.db');
    writeFileSync(junk, 'not a database at all, just text');
    const refused = await cli.run(['restore', junk], { env: fresh });
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain('cannot be restored');

    const restored = await cli.run(['restore', file, '--json'], { env: fresh });
    expect(restored.exitCode, restored.stderr).toBe(0);
    expect(restored.json.restored).toBe(join(cli.root, 'fresh', 'till.db'));
    const { process: second } = await runDaemon(cli, fresh);
    try {
      for (const email of before) expect(await signIn(url, email)).toBe(200);
      expect(await signIn(url, uniqueEmail('never'))).toBe(401);
    } finally {
      second.kill('SIGTERM');
      expect((await second).exitCode).toBe(0);
    }

    // Restoring over an existing database keeps the one it replaces.
    const over = await cli.run(['restore', file, '--json'], { env: fresh });
    expect(over.exitCode, over.stderr).toBe(0);
    expect(over.json.previous).toContain('till.db.before-restore-');
    // Two daemons started, a dozen CLI runs: on a loaded machine this takes a while. A limit, not a measurement.
  }, 300_000);

  it('on PostgreSQL, says to use pg_dump', async () => {
    const cli = new Sandbox();
    sandboxes.push(cli);
    const env = { TILL_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', TILL_SECRET: SECRET };
    const restore = await cli.run(['restore', join(cli.root, 'x.dump')], { env });
    expect(restore.exitCode).toBe(2);
    expect(restore.stderr).toContain('pg_restore');
    const help = await cli.run(['backup', '--help']);
    expect(help.stdout).toContain('pg_dump --format=custom');
  });
});
