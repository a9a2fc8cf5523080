import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import { freePort, PASSWORD, useSandboxes } from './till.js';

// Issue 21 items 2, 4 and 5: an unreachable daemon is said as such whatever the profile holds, --json errors are
// one JSON object on stderr, and tables have headers at a terminal only.

let daemon: TestDaemon;
beforeAll(async () => {
  daemon = await startTestDaemon();
});
afterAll(async () => {
  await daemon?.stop();
});
const sandbox = useSandboxes(() => ({ TILL_URL: daemon.url }));

async function merchant() {
  const cli = sandbox();
  const signup = await cli.run(['signup', '--name', 'Tove', '--email', uniqueEmail('tables'), '--password-stdin'], {
    input: `${PASSWORD}\n`,
  });
  expect(signup.exitCode, signup.stderr).toBe(0);
  const slug = `tables-${Math.random().toString(36).slice(2, 8)}`;
  expect((await cli.run(['org', 'create', '--name', 'Tables', '--slug', slug])).exitCode).toBe(0);
  for (const [name, price] of [
    ['Short', '500'],
    ['A much longer product name', '12900'],
  ]) {
    const created = await cli.run(['products', 'create', '--name', name!, '--price', price!]);
    expect(created.exitCode, created.stderr).toBe(0);
  }
  return cli;
}

describe('an unreachable daemon', () => {
  it('exits 1 naming the URL, signed in or not, and as JSON with --json', async () => {
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    const signedOut = await sandbox().run(['--url', nowhere, 'products', 'list']);
    expect(signedOut.exitCode).toBe(1);
    expect(signedOut.stderr.trim()).toMatch(new RegExp(`^till: cannot reach the Till daemon at ${nowhere}`));
    expect(signedOut.stderr).not.toContain('not signed in');

    // A profile signed in elsewhere changes nothing.
    const cli = await merchant();
    const other = await cli.run(['--url', nowhere, 'orders', 'list', '--json']);
    expect(other.exitCode).toBe(1);
    expect(other.stdout).toBe('');
    expect(JSON.parse(other.stderr)).toEqual({
      error: {
        code: 'unreachable',
        message: expect.stringContaining(`cannot reach the Till daemon at ${nowhere}`),
        status: null,
        detail: null,
      },
    });
  });

  it('still says "not signed in" (exit 4) when the daemon answers', async () => {
    const result = await sandbox().run(['products', 'list']);
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toContain('not signed in');
  });
});

describe('--json errors', () => {
  it('are one JSON object on stderr with the exit code as without --json', async () => {
    const cli = await merchant();
    const invalid = await cli.run(['products', 'create', '--name', 'B', '--free', '--json']);
    expect(invalid.exitCode).toBe(1);
    expect(invalid.stdout).toBe('');
    expect(invalid.stderr.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(invalid.stderr)).toEqual({
      error: {
        code: 'RequestValidationError',
        message: expect.stringContaining('name'),
        status: 422,
        detail: [expect.objectContaining({ loc: ['body', 'name'] })],
      },
    });

    const missing = await cli.run(['products', 'show', '0e9a9c4f-7d0e-4c55-8a2e-6a8f1b3e2d41', '--json']);
    expect(missing.exitCode).toBe(1);
    expect(JSON.parse(missing.stderr).error).toMatchObject({ status: 404, code: 'ResourceNotFound' });

    const usage = await cli.run(['products', 'list', '--bogus', '--json']);
    expect(usage.exitCode).toBe(2);
    expect(JSON.parse(usage.stderr)).toEqual({
      error: { code: 'usage', message: "unknown option '--bogus'", status: null, detail: null },
    });

    const signedOut = await sandbox().run(['orders', 'list', '--json']);
    expect(signedOut.exitCode).toBe(4);
    expect(JSON.parse(signedOut.stderr).error).toMatchObject({ code: 'not_signed_in', status: null });

    // Without --json the same failure stays one line of text.
    const text = await cli.run(['products', 'create', '--name', 'B', '--free']);
    expect(text.exitCode).toBe(1);
    expect(text.stderr).toMatch(/^till: name: /m);
  });
});

describe('list tables', () => {
  it('have a header row and aligned columns at a terminal, and stay tab-separated without a header when piped', async () => {
    const cli = await merchant();
    const piped = await cli.run(['products', 'list']);
    expect(piped.exitCode, piped.stderr).toBe(0);
    const rows = piped.stdout.trimEnd().split('\n');
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row.split('\t')).toHaveLength(6);
    expect(piped.stdout).not.toContain('NAME');

    const terminal = await cli.run(['products', 'list'], { env: { TILL_FORCE_TTY: '1' } });
    expect(terminal.exitCode, terminal.stderr).toBe(0);
    const lines = terminal.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^ID\s+NAME\s+BILLING\s+PRICE\s+ARCHIVED\s+CREATED$/);
    expect(terminal.stdout).not.toContain('\t');
    // Aligned: every column starts where its header does.
    const nameAt = lines[0]!.indexOf('NAME');
    const priceAt = lines[0]!.indexOf('PRICE');
    for (const line of lines.slice(1)) {
      expect(line[nameAt - 1]).toBe(' ');
      expect(line[nameAt]).not.toBe(' ');
      expect(line[priceAt - 1]).toBe(' ');
      expect(line[priceAt]).not.toBe(' ');
    }

    const deliveries = await cli.run(['webhooks', 'deliveries'], { env: { TILL_FORCE_TTY: '1' } });
    expect(deliveries.exitCode, deliveries.stderr).toBe(0);
    expect(deliveries.stdout.split('\n')[0]).toMatch(/^TIME\s+EVENT\s+TYPE\s+ATTEMPT/);

    const help = await cli.run(['--help']);
    expect(help.stdout).toContain('tab-separated');
    expect(help.stdout).toContain('{"error": {"code", "message", "status", "detail"}}');
  });
});
