import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import { PASSWORD, useSandboxes, type Sandbox } from './till.js';

// Issue 21 item 3: every command acts on the active organization unless --org (or --all-orgs on a list) says
// otherwise, and says which one.

let daemon: TestDaemon;
beforeAll(async () => {
  daemon = await startTestDaemon();
});
afterAll(async () => {
  await daemon?.stop();
});
const sandbox = useSandboxes(() => ({ TILL_URL: daemon.url }));

async function ok(cli: Sandbox, args: string[]) {
  const result = await cli.run(args);
  expect(result.exitCode, `${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result;
}

const names = (json: { items: Array<{ name: string }> }) => json.items.map((item) => item.name).sort();

describe('the organization a command acts on', () => {
  it('lists the active organization, another with --org, every one with --all-orgs, and says which', async () => {
    const cli = sandbox();
    const signup = await cli.run(['signup', '--name', 'Oda', '--email', uniqueEmail('scope'), '--password-stdin'], {
      input: `${PASSWORD}\n`,
    });
    expect(signup.exitCode, signup.stderr).toBe(0);
    const suffix = Math.random().toString(36).slice(2, 8);
    const [first, second] = [`first-${suffix}`, `second-${suffix}`];
    await ok(cli, ['org', 'create', '--name', 'First', '--slug', first]);
    const created = await ok(cli, ['products', 'create', '--name', 'First book', '--price', '500']);
    expect(created.stderr).toContain(`Organization: ${first}`);
    await ok(cli, ['org', 'create', '--name', 'Second', '--slug', second]);
    await ok(cli, ['products', 'create', '--name', 'Second book', '--price', '700']);

    const active = await ok(cli, ['products', 'list', '--json']);
    expect(names(JSON.parse(active.stdout))).toEqual(['Second book']);
    const human = await ok(cli, ['products', 'list']);
    expect(human.stderr).toContain(`Organization: ${second}`);
    expect(human.stdout).toContain('Second book');
    expect(human.stdout).not.toContain('First book');

    expect(names(JSON.parse((await ok(cli, ['products', 'list', '--org', first, '--json'])).stdout))).toEqual([
      'First book',
    ]);
    const all = await ok(cli, ['products', 'list', '--all-orgs']);
    expect(all.stderr).toContain('Organization: all of yours');
    expect(all.stdout).toContain('First book');
    expect(all.stdout).toContain('Second book');

    // `org use` moves every later command, creates included.
    await ok(cli, ['org', 'use', first]);
    const third = await ok(cli, ['products', 'create', '--name', 'Third book', '--price', '900', '--json']);
    expect(JSON.parse(third.stdout).organization_id).toBe(
      JSON.parse((await ok(cli, ['org', 'show', first, '--json'])).stdout).id,
    );
    expect(names(JSON.parse((await ok(cli, ['products', 'list', '--json'])).stdout))).toEqual([
      'First book',
      'Third book',
    ]);
    // Other lists follow the same rule.
    expect((await ok(cli, ['customers', 'list'])).stderr).toContain(`Organization: ${first}`);
    expect((await ok(cli, ['webhooks', 'deliveries'])).stderr).toContain(`Organization: ${first}`);

    const both = await cli.run(['products', 'list', '--org', first, '--all-orgs']);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain('--org or --all-orgs, not both');
  });
});
