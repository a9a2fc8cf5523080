import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDialect, type TestDatabase } from '../helpers/database.js';
import { TEST_SECRET } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import { until } from '../helpers/webhooks.js';
import { freePort, PASSWORD, Sandbox } from './till.js';

// Issue 21 items 1 and 9: what `till daemon start|status` say about a daemon that runs elsewhere or does not
// answer, and a daemon log that holds nothing but JSON lines. Real detached daemons on SQLite files.

const sandboxes: Sandbox[] = [];
const databases: TestDatabase[] = [];
const strayPids: number[] = [];

function sandbox(): Sandbox {
  const created = new Sandbox({ TILL_BCRYPT_COST: '4', TILL_HASH_WORKERS: '1' });
  sandboxes.push(created);
  return created;
}

afterAll(async () => {
  for (const database of databases) await database.drop();
  for (const pid of strayPids) {
    try {
      process.kill(pid, 'SIGCONT');
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone, as it should be.
    }
  }
  for (const created of sandboxes) created.cleanup();
});

async function started(cli: Sandbox, env: Record<string, string>): Promise<number> {
  const start = await cli.run(['daemon', 'start', '--json'], { env });
  expect(start.exitCode, start.stderr).toBe(0);
  strayPids.push(start.json.pid);
  return start.json.pid as number;
}

/** A process's environment as the kernel holds it (Linux), which is what glibc read at the process's start. */
function environmentOf(pid: number): Map<string, string> {
  const pairs = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return new Map(pairs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
}

describe('till daemon start | status, told the truth', () => {
  it('names where the running daemon listens when asked for another port, and starts a second one for another data dir', async () => {
    const cli = sandbox();
    const [port, otherPort] = [await freePort(), await freePort()];
    const dataDir = join(cli.root, 'one');
    const env = { TILL_DATA_DIR: dataDir, TILL_PORT: String(port) };
    const pid = await started(cli, env);
    // The daemon starts with glibc's arenas limited (see daemonEnvironment) unless the caller chose a number.
    if (process.platform === 'linux') expect(environmentOf(pid).get('MALLOC_ARENA_MAX')).toBe('2');

    const elsewhere = await cli.run(['daemon', 'start'], { env: { ...env, TILL_PORT: String(otherPort) } });
    expect(elsewhere.exitCode).toBe(1);
    expect(elsewhere.stderr).toContain(`already running at http://127.0.0.1:${port} (pid ${pid})`);
    expect(elsewhere.stderr).toContain(`not at http://127.0.0.1:${otherPort}`);
    // The same address again is the wanted state: exit 0.
    expect((await cli.run(['daemon', 'start'], { env })).exitCode).toBe(0);

    // Status reads where the daemon was started, whatever today's TILL_PORT says.
    const status = await cli.run(['daemon', 'status', '--json'], { env: { ...env, TILL_PORT: String(otherPort) } });
    expect(status.exitCode).toBe(0);
    expect(status.json).toMatchObject({ running: true, responding: true, url: `http://127.0.0.1:${port}` });

    const secondEnv = { TILL_DATA_DIR: join(cli.root, 'two'), TILL_PORT: String(otherPort), MALLOC_ARENA_MAX: '8' };
    const second = await started(cli, secondEnv);
    expect(second).not.toBe(pid);
    if (process.platform === 'linux') expect(environmentOf(second).get('MALLOC_ARENA_MAX')).toBe('8');
    const secondStatus = await cli.run(['daemon', 'status', '--json'], { env: secondEnv });
    expect(secondStatus.json).toMatchObject({ running: true, responding: true, pid: second });

    expect((await cli.run(['daemon', 'stop'], { env: secondEnv })).exitCode).toBe(0);
    expect((await cli.run(['daemon', 'stop'], { env })).exitCode).toBe(0);
  });

  it('exits 1 from status when the daemon runs but does not answer', async () => {
    const cli = sandbox();
    const env = { TILL_DATA_DIR: join(cli.root, 'data'), TILL_PORT: String(await freePort()) };
    const pid = await started(cli, env);
    process.kill(pid, 'SIGSTOP');
    try {
      const status = await cli.run(['daemon', 'status'], { env });
      expect(status.exitCode).toBe(1);
      expect(status.stdout).toContain(`running (pid ${pid})`);
      expect(status.stdout).toContain('but not answering there');
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    expect((await cli.run(['daemon', 'status'], { env })).exitCode).toBe(0);
    expect((await cli.run(['daemon', 'stop'], { env })).exitCode).toBe(0);
  });
});

describe('the daemon log', () => {
  it('holds only JSON lines, and nothing about a `till listen` ended with Ctrl-C', async () => {
    const cli = sandbox();
    const port = await freePort();
    const dataDir = join(cli.root, 'data');
    // At debug level, so a client going away is shown to be silent and not merely below the level.
    // On PostgreSQL when the suite runs there (its LISTEN connection is one more thing that could log).
    const database = testDialect === 'postgres' ? await createTestDatabase() : null;
    if (database) databases.push(database);
    const env = {
      TILL_DATA_DIR: dataDir,
      TILL_PORT: String(port),
      TILL_URL: `http://127.0.0.1:${port}`,
      TILL_LOG_LEVEL: 'debug',
      ...(database ? { TILL_DATABASE_URL: database.url, TILL_SECRET: TEST_SECRET } : {}),
    };
    await started(cli, env);
    const signup = await cli.run(['signup', '--name', 'Lin', '--email', uniqueEmail('log'), '--password-stdin'], {
      env,
      input: `${PASSWORD}\n`,
    });
    expect(signup.exitCode, signup.stderr).toBe(0);
    expect((await cli.run(['org', 'create', '--name', 'Logs', '--slug', 'logs'], { env })).exitCode).toBe(0);

    const listener = cli.spawn(['listen', '--forward-to', 'http://127.0.0.1:9/'], { env });
    let stderr = '';
    listener.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await until(() => stderr.includes('Ready!'));
    // The stream is open once the daemon has answered it; a product event proves it (and is forwarded nowhere).
    expect((await cli.run(['products', 'create', '--name', 'Logged', '--free'], { env })).exitCode).toBe(0);
    await until(() => stderr.includes('product.created') || stderr.includes('Lost the event stream'), 2_000);
    listener.kill('SIGINT');
    expect((await listener).exitCode).toBe(0);

    const stop = await cli.run(['daemon', 'stop'], { env });
    expect(stop.exitCode, stop.stderr).toBe(0);
    const lines = readFileSync(join(dataDir, 'daemon.log'), 'utf8').trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    expect(lines.join('\n')).not.toMatch(/PREMATURE_CLOSE|Premature close/);
    expect(lines.map((line) => JSON.parse(line).message)).toEqual(
      expect.arrayContaining([`listening on http://127.0.0.1:${port}`, 'stopped']),
    );
  });

  it('records a failure to start as a JSON line, which `daemon start` quotes', async () => {
    const cli = sandbox();
    const dataDir = join(cli.root, 'data');
    const database = `sqlite:${join(cli.root, 'shared.db')}`;
    const port = await freePort();
    await started(cli, {
      TILL_DATA_DIR: join(cli.root, 'first'),
      TILL_DATABASE_URL: database,
      TILL_PORT: String(port),
    });
    const env = { TILL_DATA_DIR: dataDir, TILL_DATABASE_URL: database, TILL_PORT: String(await freePort()) };
    const start = await cli.run(['daemon', 'start'], { env });
    expect(start.exitCode).toBe(1);
    expect(start.stderr).toContain('exited with code 1 before it answered');
    expect(start.stderr).toMatch(/error: the daemon could not start: another Till daemon is already using/);
    for (const line of readFileSync(join(dataDir, 'daemon.log'), 'utf8').trimEnd().split('\n'))
      expect(() => JSON.parse(line), line).not.toThrow();
    const stopEnv = { TILL_DATA_DIR: join(cli.root, 'first') };
    expect((await cli.run(['daemon', 'stop'], { env: stopEnv })).exitCode).toBe(0);
  });
});
