import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../helpers/http.js';
import { freePort, PASSWORD, Sandbox } from './till.js';

const sandboxes: Sandbox[] = [];
const strayPids: number[] = [];

function sandbox(): Sandbox {
  const created = new Sandbox({ TILL_BCRYPT_COST: '4', TILL_HASH_WORKERS: '1' });
  sandboxes.push(created);
  return created;
}

afterAll(() => {
  // A failed assertion must not leave a detached daemon behind.
  for (const pid of strayPids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone, as it should be.
    }
  }
  for (const created of sandboxes) created.cleanup();
});

// These run real daemons on SQLite files whatever TILL_TEST_DATABASE_URL says.
describe('till daemon start | status | stop', () => {
  it('starts in the background, reports its status, serves requests and stops', async () => {
    const cli = sandbox();
    const port = await freePort();
    const dataDir = join(cli.root, 'data-dir');
    const env = { TILL_DATA_DIR: dataDir, TILL_PORT: String(port), TILL_URL: `http://127.0.0.1:${port}` };

    const before = await cli.run(['daemon', 'status', '--json'], { env });
    expect(before.exitCode).toBe(1);
    expect(before.json).toMatchObject({ running: false, pid: null });

    const start = await cli.run(['daemon', 'start', '--json'], { env });
    expect(start.exitCode, start.stderr).toBe(0);
    expect(start.json).toMatchObject({
      running: true,
      alreadyRunning: false,
      url: `http://127.0.0.1:${port}`,
      dataDir,
    });
    const pid = start.json.pid as number;
    strayPids.push(pid);
    expect(Number(readFileSync(join(dataDir, 'daemon.pid'), 'utf8'))).toBe(pid);
    expect(readFileSync(join(dataDir, 'daemon.log'), 'utf8')).toContain(`listening on http://127.0.0.1:${port}`);

    const status = await cli.run(['daemon', 'status', '--json'], { env });
    expect(status.exitCode).toBe(0);
    expect(status.json).toMatchObject({ running: true, pid, responding: true, url: `http://127.0.0.1:${port}` });
    const human = await cli.run(['daemon', 'status'], { env });
    expect(human.stdout).toContain(`running (pid ${pid})`);

    const again = await cli.run(['daemon', 'start', '--json'], { env });
    expect(again.exitCode).toBe(0);
    expect(again.json).toMatchObject({ alreadyRunning: true, pid });

    const signup = await cli.run(['signup', '--name', 'Ida', '--email', uniqueEmail('daemon'), '--password-stdin'], {
      env,
      input: `${PASSWORD}\n`,
    });
    expect(signup.exitCode, signup.stderr).toBe(0);

    const stop = await cli.run(['daemon', 'stop', '--json'], { env });
    expect(stop.exitCode, stop.stderr).toBe(0);
    expect(stop.json).toEqual({ stopped: true, wasRunning: true, pid });
    expect(existsSync(join(dataDir, 'daemon.pid'))).toBe(false);

    const after = await cli.run(['daemon', 'status'], { env });
    expect(after.exitCode).toBe(1);
    expect(after.stdout.trim()).toBe('stopped');
    const stopAgain = await cli.run(['daemon', 'stop'], { env });
    expect(stopAgain.exitCode).toBe(0);
  });
});

describe('till daemon run', () => {
  it('refuses a second daemon on the same SQLite file (exit 1), and stops on SIGTERM', async () => {
    const cli = sandbox();
    const env = {
      TILL_DATA_DIR: join(cli.root, 'data'),
      TILL_DATABASE_URL: `sqlite:${join(cli.root, 'shared.db')}`,
      TILL_PORT: '0',
    };
    const first = cli.spawn(['daemon', 'run'], { env });
    strayPids.push(first.pid!);
    // Wait for the readiness line on stderr rather than for any length of time.
    await new Promise<void>((resolve, reject) => {
      let seen = '';
      first.stderr!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes('listening on http://127.0.0.1:')) resolve();
      });
      first.once('exit', () => reject(new Error(`the first daemon exited early: ${seen}`)));
    });

    const second = await cli.run(['daemon', 'run'], { env });
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toMatch(/^till: another Till daemon is already using .*shared\.db/m);
    expect(second.stderr.trim().split('\n')).toHaveLength(1);

    // The background form reports the same failure with the end of the daemon's log.
    const start = await cli.run(['daemon', 'start'], { env: { ...env, TILL_PORT: String(await freePort()) } });
    expect(start.exitCode).toBe(1);
    expect(start.stderr).toContain('exited with code 1 before it answered');
    expect(start.stderr).toContain('already using');

    first.kill('SIGTERM');
    const result = await first;
    expect(result.exitCode).toBe(0);
    expect(String(result.stderr)).toContain('stopped');
  });

  it('exits 2 on invalid settings', async () => {
    const result = await sandbox().run(['daemon', 'run'], { env: { TILL_PORT: 'not-a-port' } });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('TILL_PORT');
  });
});
