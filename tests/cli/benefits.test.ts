import { randomUUID } from 'node:crypto';
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

/** A signed-in merchant with one organization. */
async function merchant(): Promise<{ cli: Sandbox; orgId: string; slug: string }> {
  const cli = sandbox();
  const signup = await cli.run(['signup', '--name', 'Ada', '--email', uniqueEmail('benefits'), '--password-stdin'], {
    input: `${PASSWORD}\n`,
  });
  expect(signup.exitCode, signup.stderr).toBe(0);
  const slug = `shop-${Math.random().toString(36).slice(2, 8)}`;
  const org = await cli.run(['org', 'create', '--name', 'Shop', '--slug', slug, '--json']);
  expect(org.exitCode, org.stderr).toBe(0);
  return { cli, orgId: org.json.id, slug };
}

describe('till benefits', () => {
  it('creates benefits of several types from flags, lists, updates and deletes them', async () => {
    const { cli, orgId, slug } = await merchant();

    const license = await cli.run([
      'benefits',
      'create',
      '--type',
      'license_keys',
      '--description',
      'Pro license',
      '--prefix',
      'PRO',
      '--expires',
      '1year',
      '--activations-limit',
      '3',
      '--customer-admin',
      '--limit-usage',
      '100',
      '--metadata',
      'tier=pro',
      '--metadata',
      'seats=5',
      '--org',
      slug,
      '--json',
    ]);
    expect(license.exitCode, license.stderr).toBe(0);
    expect(license.json).toMatchObject({
      type: 'license_keys',
      organization_id: orgId,
      metadata: { tier: 'pro', seats: 5 },
      properties: {
        prefix: 'PRO',
        expires: { ttl: 1, timeframe: 'year' },
        activations: { limit: 3, enable_customer_admin: true },
        limit_usage: 100,
      },
    });

    // Without --json only the id reaches stdout.
    const custom = await cli.run([
      'benefits',
      'create',
      '--type',
      'custom',
      '--description',
      'Private Slack',
      '--note',
      'Welcome aboard',
    ]);
    expect(custom.exitCode, custom.stderr).toBe(0);
    const customId = custom.stdout.trim();
    expect(customId).toMatch(/^[0-9a-f-]{36}$/);
    expect(custom.stderr).toContain('Created custom benefit "Private Slack"');

    const discord = await cli.run([
      'benefits',
      'create',
      '--type',
      'discord',
      '--description',
      'Members role',
      '--guild-id',
      '123456789012345678',
      '--role-id',
      '876543210987654321',
      '--kick-member',
      '--json',
    ]);
    expect(discord.exitCode, discord.stderr).toBe(0);
    expect(discord.json.properties).toEqual({
      guild_id: '123456789012345678',
      guild_token: '123456789012345678',
      role_id: '876543210987654321',
      kick_member: true,
    });
    const github = await cli.run([
      'benefits',
      'create',
      '--type',
      'github_repository',
      '--description',
      'Repo access',
      '--repository',
      'acme/private-repo',
      '--permission',
      'triage',
      '--json',
    ]);
    expect(github.exitCode, github.stderr).toBe(0);
    expect(github.json.properties).toEqual({
      repository_owner: 'acme',
      repository_name: 'private-repo',
      permission: 'triage',
    });
    // meter_credit names one of the organization's meters.
    const created = await cli.run(['meters', 'create', '--name', 'API calls', '--event', 'api_call', '--json']);
    expect(created.exitCode, created.stderr).toBe(0);
    const meterId = created.json.id as string;
    const meter = await cli.run([
      'benefits',
      'create',
      '--type',
      'meter_credit',
      '--description',
      'API credits',
      '--units',
      '500',
      '--rollover',
      '--meter-id',
      meterId,
      '--json',
    ]);
    expect(meter.exitCode, meter.stderr).toBe(0);
    expect(meter.json.properties).toEqual({ units: 500, rollover: true, meter_id: meterId });

    const list = await cli.run(['benefits', 'list', '--json']);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.json.pagination.total_count).toBe(5);
    const filtered = await cli.run([
      'benefits',
      'list',
      '--type',
      'discord',
      '--type',
      'custom',
      '--query',
      'slack',
      '--json',
    ]);
    expect(filtered.json.items.map((item: { id: string }) => item.id)).toEqual([customId]);
    const table = await cli.run(['benefits', 'list', '--limit', '2', '--page', '3']);
    expect(table.exitCode, table.stderr).toBe(0);
    expect(table.stdout.trim().split('\n')).toHaveLength(1);

    // Flags merge onto the current properties: the prefix and expiry stay.
    const updated = await cli.run([
      'benefits',
      'update',
      license.json.id,
      '--description',
      'Team license',
      '--activations-limit',
      '10',
      '--no-customer-admin',
      '--limit-usage',
      'none',
      '--json',
    ]);
    expect(updated.exitCode, updated.stderr).toBe(0);
    expect(updated.json).toMatchObject({
      description: 'Team license',
      properties: {
        prefix: 'PRO',
        expires: { ttl: 1, timeframe: 'year' },
        activations: { limit: 10, enable_customer_admin: false },
        limit_usage: null,
      },
    });
    const kept = await cli.run(['benefits', 'update', discord.json.id, '--no-kick-member', '--json']);
    expect(kept.json.properties).toMatchObject({ guild_id: '123456789012345678', kick_member: false });
    const shown = await cli.run(['benefits', 'get', license.json.id, '--json']);
    expect(shown.json).toEqual(updated.json);

    const deleted = await cli.run(['benefits', 'delete', customId]);
    expect(deleted.exitCode, deleted.stderr).toBe(0);
    expect(deleted.stderr).toContain(`Deleted benefit ${customId}`);
    const again = await cli.run(['benefits', 'delete', customId]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain(`benefit ${customId} not found`);
  });

  it('exits 2 on usage errors, 1 on the daemon’s refusals and 4 when not signed in', async () => {
    const { cli } = await merchant();
    const wrongType = await cli.run([
      'benefits',
      'create',
      '--type',
      'custom',
      '--description',
      'Oops',
      '--prefix',
      'X',
    ]);
    expect(wrongType.exitCode).toBe(2);
    expect(wrongType.stderr).toContain('--prefix applies to --type license_keys');
    expect((await cli.run(['benefits', 'create', '--description', 'No type'])).exitCode).toBe(2);
    expect(
      (await cli.run(['benefits', 'create', '--type', 'license_keys', '--description', 'Bad', '--expires', 'soon']))
        .exitCode,
    ).toBe(2);
    expect((await cli.run(['benefits', 'list', '--limit', 'many'])).exitCode).toBe(2);

    const invalid = await cli.run([
      'benefits',
      'create',
      '--type',
      'github_repository',
      '--description',
      'Repo',
      '--repository',
      'acme/repo',
      '--permission',
      'write',
    ]);
    expect(invalid.exitCode).toBe(1);
    expect(invalid.stderr).toContain('properties.permission');
    const tooShort = await cli.run(['benefits', 'create', '--type', 'custom', '--description', 'ab']);
    expect(tooShort.exitCode).toBe(1);
    expect(tooShort.stderr).toContain('description');
    expect((await cli.run(['benefits', 'get', randomUUID()])).exitCode).toBe(1);

    const anonymous = sandbox();
    expect((await anonymous.run(['benefits', 'list'])).exitCode).toBe(4);
    expect((await anonymous.run(['fields', 'list'])).exitCode).toBe(4);
  });
});

describe('till fields', () => {
  it('creates, lists, updates and deletes custom fields', async () => {
    const { cli, orgId } = await merchant();
    const size = await cli.run([
      'fields',
      'create',
      '--type',
      'select',
      '--slug',
      'size',
      '--name',
      'Size',
      '--option',
      's=Small',
      '--option',
      'm=Medium',
      '--json',
    ]);
    expect(size.exitCode, size.stderr).toBe(0);
    expect(size.json).toMatchObject({
      type: 'select',
      slug: 'size',
      name: 'Size',
      organization_id: orgId,
      properties: {
        options: [
          { value: 's', label: 'Small' },
          { value: 'm', label: 'Medium' },
        ],
      },
    });
    const company = await cli.run([
      'fields',
      'create',
      '--type',
      'text',
      '--slug',
      'company',
      '--name',
      'Company',
      '--label',
      'Company name',
      '--textarea',
      '--max-length',
      '80',
    ]);
    expect(company.exitCode, company.stderr).toBe(0);
    const companyId = company.stdout.trim();
    const start = await cli.run([
      'fields',
      'create',
      '--type',
      'date',
      '--slug',
      'start',
      '--name',
      'Start',
      '--ge',
      '2027-01-01',
      '--json',
    ]);
    expect(start.exitCode, start.stderr).toBe(0);
    expect(start.json.properties).toEqual({ ge: Date.parse('2027-01-01T00:00:00Z') / 1000 });

    const duplicate = await cli.run(['fields', 'create', '--type', 'checkbox', '--slug', 'size', '--name', 'Again']);
    expect(duplicate.exitCode).toBe(1);
    expect(duplicate.stderr).toContain('slug: Custom field with this slug already exists.');

    const list = await cli.run(['fields', 'list', '--json']);
    expect(list.json.items.map((item: { slug: string }) => item.slug)).toEqual(['company', 'size', 'start']);
    const selects = await cli.run(['fields', 'list', '--type', 'select']);
    expect(selects.stdout).toContain('size');
    expect(selects.stdout).not.toContain('company');

    const updated = await cli.run([
      'fields',
      'update',
      companyId,
      '--name',
      'Company name',
      '--min-length',
      '2',
      '--json',
    ]);
    expect(updated.exitCode, updated.stderr).toBe(0);
    expect(updated.json).toMatchObject({
      name: 'Company name',
      properties: { form_label: 'Company name', textarea: true, min_length: 2, max_length: 80 },
    });
    const options = await cli.run(['fields', 'update', size.json.id, '--option', 'l=Large', '--json']);
    expect(options.json.properties.options).toEqual([{ value: 'l', label: 'Large' }]);

    const wrongFlag = await cli.run(['fields', 'update', companyId, '--option', 'x=X']);
    expect(wrongFlag.exitCode).toBe(2);
    expect((await cli.run(['fields', 'update', companyId])).exitCode).toBe(2);

    const deleted = await cli.run(['fields', 'delete', companyId, '--json']);
    expect(deleted.exitCode, deleted.stderr).toBe(0);
    expect(deleted.json).toEqual({ deleted: true, id: companyId });
    expect((await cli.run(['fields', 'list', '--json'])).json.pagination.total_count).toBe(2);
  });
});
