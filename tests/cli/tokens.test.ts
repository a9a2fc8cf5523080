import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import { bearerClient } from '../helpers/v1.js';
import { PASSWORD, useSandboxes } from './till.js';

let daemon: TestDaemon;

beforeAll(async () => {
  daemon = await startTestDaemon();
});
afterAll(async () => {
  await daemon?.stop();
});

const sandbox = useSandboxes(() => ({ TILL_URL: daemon.url }));

/** A signed-up user in their own sandbox, owning one organization. */
async function merchant() {
  const cli = sandbox();
  const signup = await cli.run(['signup', '--name', 'Mira', '--email', uniqueEmail('tokens'), '--password-stdin'], {
    input: `${PASSWORD}\n`,
  });
  expect(signup.exitCode, signup.stderr).toBe(0);
  const slug = `shop-${Math.random().toString(36).slice(2, 8)}`;
  const org = await cli.run(['org', 'create', '--name', 'Shop', '--slug', slug, '--json']);
  expect(org.exitCode, org.stderr).toBe(0);
  return { cli, slug, orgId: org.json.id as string };
}

describe('till tokens', () => {
  it('creates a token shown once, lists it, revokes it, after which /v1 answers 401', async () => {
    const { cli, slug, orgId } = await merchant();

    const created = await cli.run([
      'tokens',
      'create',
      '--comment',
      'ci deploys',
      '--scope',
      'products:read',
      '--scope',
      'organizations:read',
      '--expires-in',
      'P30D',
      '--org',
      slug,
    ]);
    expect(created.exitCode, created.stderr).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(/^till_oat_[A-Za-z0-9]+$/);
    expect(created.stderr).toMatch(/only time it is shown/);

    const asToken = bearerClient(daemon, token);
    const org = await asToken.get(`/v1/organizations/${orgId}`);
    expect(org.status).toBe(200);
    expect(org.json.slug).toBe(slug);

    const listed = await cli.run(['tokens', 'list', '--json']);
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect(listed.json).toEqual([
      expect.objectContaining({
        comment: 'ci deploys',
        organization_id: orgId,
        scopes: ['products:read', 'organizations:read'],
        expires_at: expect.any(String),
      }),
    ]);
    // The token itself is never listed again.
    expect(JSON.stringify(listed.json)).not.toContain(token);
    const table = await cli.run(['tokens', 'list', '--org', slug]);
    expect(table.stdout).toContain('ci deploys');
    expect(table.stdout).not.toContain(token);

    const id = listed.json[0].id as string;
    const revoked = await cli.run(['tokens', 'revoke', id, '--json']);
    expect(revoked.exitCode, revoked.stderr).toBe(0);
    expect(revoked.json).toEqual({ revoked: true, id });
    const refused = await asToken.get(`/v1/organizations/${orgId}`);
    expect(refused.status).toBe(401);
    expect((await cli.run(['tokens', 'list', '--json'])).json).toEqual([]);

    const again = await cli.run(['tokens', 'revoke', id]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain(`access token ${id} not found`);
  });

  it('takes --scopes as a list, prints the whole answer with --json, and uses the only organization without --org', async () => {
    const { cli, orgId } = await merchant();
    const created = await cli.run([
      'tokens',
      'create',
      '--comment',
      'reader',
      '--scopes',
      'products:read,files:read',
      '--json',
    ]);
    expect(created.exitCode, created.stderr).toBe(0);
    expect(created.json).toMatchObject({
      token: expect.stringMatching(/^till_oat_/),
      organization_access_token: {
        comment: 'reader',
        organization_id: orgId,
        scopes: ['products:read', 'files:read'],
        expires_at: null,
      },
    });
  });

  it('reports usage errors and the daemon’s validation errors', async () => {
    const { cli } = await merchant();
    const noScope = await cli.run(['tokens', 'create', '--comment', 'x']);
    expect(noScope.exitCode).toBe(2);
    expect(noScope.stderr).toMatch(/at least one scope/);
    const badScope = await cli.run(['tokens', 'create', '--comment', 'x', '--scope', 'products:destroy']);
    expect(badScope.exitCode).toBe(2);
    expect(badScope.stderr).toMatch(/unknown scope "products:destroy"/);
    const badDuration = await cli.run([
      'tokens',
      'create',
      '--comment',
      'x',
      '--scope',
      'products:read',
      '--expires-in',
      'soon',
    ]);
    expect(badDuration.exitCode).toBe(1);
    expect(badDuration.stderr).toMatch(/expires_in: .*duration/);
    const unknownOrg = await cli.run([
      'tokens',
      'create',
      '--comment',
      'x',
      '--scope',
      'products:read',
      '--org',
      'nowhere',
    ]);
    expect(unknownOrg.exitCode).toBe(1);
    expect(unknownOrg.stderr).toMatch(/no organization "nowhere"/);
  });

  it('exits 4 when not signed in', async () => {
    const result = await sandbox().run(['tokens', 'list']);
    expect(result.exitCode).toBe(4);
  });
});
