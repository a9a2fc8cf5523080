import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import { PASSWORD, Sandbox } from './till.js';

let daemon: TestDaemon;
const sandboxes: Sandbox[] = [];

beforeAll(async () => {
  daemon = await startTestDaemon({
    organizations: { allowCreate: true, limit: null, teams: true, allowRemovingAllTeams: false },
  });
});
afterAll(async () => {
  await daemon?.stop();
  for (const created of sandboxes) created.cleanup();
});

function sandbox(env: Record<string, string> = {}): Sandbox {
  const created = new Sandbox({ TILL_URL: daemon.url, ...env });
  sandboxes.push(created);
  return created;
}

/** A signed-in merchant with one organization (the active one). */
async function merchant(): Promise<{ cli: Sandbox; orgId: string; slug: string }> {
  const cli = sandbox();
  const signup = await cli.run(['signup', '--name', 'Ada', '--email', uniqueEmail('customers'), '--password-stdin'], {
    input: `${PASSWORD}\n`,
  });
  expect(signup.exitCode, signup.stderr).toBe(0);
  const slug = `shop-${Math.random().toString(36).slice(2, 8)}`;
  const org = await cli.run(['org', 'create', '--name', 'Shop', '--slug', slug, '--json']);
  expect(org.exitCode, org.stderr).toBe(0);
  return { cli, orgId: org.json.id, slug };
}

describe('till customers', () => {
  it('creates, lists, shows, updates, reads the state of and deletes customers', async () => {
    const { cli, orgId, slug } = await merchant();
    const email = uniqueEmail('buyer');

    const created = await cli.run([
      'customers',
      'create',
      '--email',
      email,
      '--name',
      'Bea',
      '--external-id',
      'crm-1',
      '--metadata',
      'plan=pro',
      '--org',
      slug,
    ]);
    expect(created.exitCode, created.stderr).toBe(0);
    const id = created.stdout.trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);

    const second = await cli.run(['customers', 'create', '--email', uniqueEmail('other'), '--json']);
    expect(second.exitCode, second.stderr).toBe(0);
    expect(second.json).toMatchObject({ organization_id: orgId, type: 'individual', name: null });

    const list = await cli.run(['customers', 'list', '--json']);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.json.map((customer: { id: string }) => customer.id).sort()).toEqual([id, second.json.id].sort());
    const filtered = await cli.run(['customers', 'list', '--metadata', 'plan=pro', '--json']);
    expect(filtered.json.map((customer: { id: string }) => customer.id)).toEqual([id]);
    const table = await cli.run(['customers', 'list', '--query', 'buyer']);
    expect(table.stdout.trim().split('\n')).toHaveLength(1);
    expect(table.stdout).toContain(`${id}\t${email}\tBea\tcrm-1\t`);

    const shown = await cli.run(['customers', 'show', '--external-id', 'crm-1']);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/email:\s+buyer/);
    expect(shown.stdout).toContain('plan=pro');
    expect((await cli.run(['customers', 'show', id, '--json'])).json).toMatchObject({
      id,
      email,
      external_id: 'crm-1',
    });

    const updated = await cli.run([
      'customers',
      'update',
      id,
      '--name',
      'Beatrice',
      '--metadata',
      'plan=team',
      '--json',
    ]);
    expect(updated.exitCode, updated.stderr).toBe(0);
    expect(updated.json).toMatchObject({ name: 'Beatrice', metadata: { plan: 'team' } });
    const byExternal = await cli.run(['customers', 'update', '--external-id', 'crm-1', '--name', '']);
    expect(byExternal.exitCode, byExternal.stderr).toBe(0);
    expect((await cli.run(['customers', 'show', id, '--json'])).json.name).toBeNull();

    const state = await cli.run(['customers', 'state', id, '--json']);
    expect(state.exitCode, state.stderr).toBe(0);
    expect(state.json).toMatchObject({ id, active_subscriptions: [], granted_benefits: [], active_meters: [] });
    const stateText = await cli.run(['customers', 'state', '--external-id', 'crm-1']);
    expect(stateText.stdout).toContain('none active');

    const deleted = await cli.run(['customers', 'delete', '--external-id', 'crm-1', '--json']);
    expect(deleted.exitCode, deleted.stderr).toBe(0);
    expect(deleted.json).toEqual({ deleted: true, external_id: 'crm-1' });
    const gone = await cli.run(['customers', 'show', id]);
    expect(gone.exitCode).toBe(1);
    expect(gone.stderr).toContain(`customer ${id} not found`);
    expect((await cli.run(['customers', 'delete', second.json.id, '--anonymize'])).exitCode).toBe(0);
    expect((await cli.run(['customers', 'list', '--json'])).json).toEqual([]);
  });

  it('exits 1 with the daemon’s reason, 2 on usage errors and 4 when not signed in', async () => {
    const { cli } = await merchant();
    const email = uniqueEmail('dup');
    expect((await cli.run(['customers', 'create', '--email', email])).exitCode).toBe(0);
    const duplicate = await cli.run(['customers', 'create', '--email', email]);
    expect(duplicate.exitCode).toBe(1);
    expect(duplicate.stderr).toContain('email: A customer with this email address already exists.');
    const invalid = await cli.run(['customers', 'create', '--email', 'not-an-email']);
    expect(invalid.exitCode).toBe(1);
    expect(invalid.stderr).toMatch(/email:/);

    expect((await cli.run(['customers', 'create'])).exitCode).toBe(2);
    expect((await cli.run(['customers', 'show'])).exitCode).toBe(2);
    expect((await cli.run(['customers', 'update', '--external-id', 'x'])).exitCode).toBe(2);
    expect((await cli.run(['customers', 'create', '--email', uniqueEmail(), '--metadata', 'novalue'])).exitCode).toBe(
      2,
    );

    const anonymous = sandbox();
    const refused = await anonymous.run(['customers', 'list']);
    expect(refused.exitCode).toBe(4);
  });
});
