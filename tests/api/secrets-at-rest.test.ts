import { createProduct } from '../helpers/catalog.js';
import { purchase } from '../helpers/purchases.js';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { up as secretsAtRest } from '../../migrations/20261122000000_secrets_at_rest.js';
import { DEFAULT_EMAIL_FLOWS } from '../../src/core/config/index.js';
import { createSecretBox } from '../../src/core/kernel/secret-box.js';
import { useTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { testDialect } from '../helpers/database.js';
import { DEFAULT_PASSWORD, TestClient, signUpUser, uniqueEmail } from '../helpers/http.js';
import { createMerchant } from '../helpers/v1.js';
import { WEBHOOK_TEST_CONFIG } from '../helpers/webhooks.js';

// What SECURITY.md promises about two tables that used to hold secrets in plain text: idempotency answers are
// sealed, OAuth states are stored as digests, and the migration converts rows written before.

const daemon = useTestDaemon({
  ...WEBHOOK_TEST_CONFIG,
  emailFlows: { ...DEFAULT_EMAIL_FLOWS, deleteUser: 'verify' },
  oauth: {
    providers: [
      // Explicit endpoints, never contacted: these tests stop at the callback's state check.
      {
        id: 'plain',
        clientId: 'x',
        clientSecret: 'y',
        authorizationEndpoint: 'https://idp.invalid/auth',
        tokenEndpoint: 'https://idp.invalid/token',
      },
    ],
    trustedProviders: [],
    disableSignUp: false,
    disableImplicitSignUp: false,
  },
});

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const seal = (d: TestDaemon) => ({
  seal: (plaintext: string, context: string) => d.core.secretBox.seal(plaintext, context),
});

async function storedAnswer(d: TestDaemon, key: string): Promise<string> {
  const row = await d.core.db('idempotency_keys').where({ key }).first();
  return String(row.response_body);
}

describe('idempotency answers at rest', () => {
  it('seals the stored answer, so the access token it created is not in the table, and still replays it', async () => {
    const { api } = await createMerchant(daemon());
    const headers = { 'idempotency-key': 'sealed-token' };
    const body = { comment: 'sealed', scopes: ['organization_access_tokens:read'] };
    const first = await api.post('/v1/organization-access-tokens/', body, { headers });
    expect(first.status).toBe(201);
    const stored = await storedAnswer(daemon(), 'sealed-token');
    expect(stored).toMatch(/^v1\./);
    expect(stored).not.toContain(first.json.token);
    expect(stored).not.toContain(first.json.token.slice('till_oat_'.length));
    const replay = await api.post('/v1/organization-access-tokens/', body, { headers });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json).toEqual(first.json);
    const token = await new TestClient(daemon().url).get('/v1/organization-access-tokens/', {
      headers: { authorization: `Bearer ${replay.json.token}` },
    });
    expect(token.status).toBe(200);
  });

  it('keeps a webhook endpoint’s secret out of the stored answer too', async () => {
    const { api } = await createMerchant(daemon());
    const headers = { 'idempotency-key': 'sealed-endpoint' };
    const body = { url: 'http://127.0.0.1:9/hook', format: 'raw', events: ['order.paid'] };
    const created = await api.post('/v1/webhooks/endpoints', body, { headers });
    expect(created.status, created.text).toBe(201);
    const stored = await storedAnswer(daemon(), 'sealed-endpoint');
    expect(stored).not.toContain(created.json.secret);
    expect(stored).not.toContain(created.json.secret.slice('whsec_'.length));
    expect((await api.post('/v1/webhooks/endpoints', body, { headers })).json.secret).toBe(created.json.secret);
  });

  it('answers 422 when the answer was sealed under another secret, and never runs the request again', async () => {
    const { api } = await createMerchant(daemon());
    const headers = { 'idempotency-key': 'rotated' };
    const body = { comment: 'rotated', scopes: [] };
    expect((await api.post('/v1/organization-access-tokens/', body, { headers })).status).toBe(201);
    const row = await daemon().core.db('idempotency_keys').where({ key: 'rotated' }).first();
    const other = createSecretBox('another-secret-that-is-long-enough-0123456789');
    const context = `idempotency_keys:${JSON.stringify([row.principal, 'rotated'])}`;
    await daemon()
      .core.db('idempotency_keys')
      .where({ key: 'rotated' })
      .update({ response_body: other.seal('{"token":"x"}', context) });
    const again = await api.post('/v1/organization-access-tokens/', body, { headers });
    expect(again.status).toBe(422);
    expect(again.json.detail[0]).toMatchObject({
      loc: ['header', 'idempotency-key'],
      type: 'idempotency_key_unreadable',
    });
    const list = await api.get('/v1/organization-access-tokens/');
    expect(list.json.items.filter((token: { comment: string }) => token.comment === 'rotated')).toHaveLength(1);
  });
});

describe('OAuth state at rest', () => {
  it('stores only the digest of the state, and the callback still finds it', async () => {
    const c = new TestClient(daemon().url);
    const start = await c.post('/api/auth/sign-in/social', {
      provider: 'plain',
      callbackURL: '/dashboard',
      errorCallbackURL: '/oops',
    });
    const state = new URL(start.json.url).searchParams.get('state')!;
    const rows = await daemon().core.db('verifications').where('identifier', 'like', 'auth-state:%');
    expect(rows.some((row) => String(row.identifier).includes(state) || String(row.value).includes(state))).toBe(false);
    expect(rows.some((row) => row.identifier === `auth-state:${sha256(state)}`)).toBe(true);
    // Past the state check, the missing code is reported to the flow's own error URL.
    expect((await c.get(`/api/auth/callback/plain?state=${state}`)).headers.location).toBe('/oops?error=no_code');
  });
});

describe('migration 20261122000000_secrets_at_rest', () => {
  it('hashes plain OAuth states and seals plain idempotency answers, which then work as before', async () => {
    const d = daemon();
    const { api } = await createMerchant(d);
    const headers = { 'idempotency-key': 'written-before' };
    const first = await api.post('/v1/organization-access-tokens/', { comment: 'before', scopes: [] }, { headers });
    const c = new TestClient(d.url);
    const start = await c.post('/api/auth/sign-in/social', { provider: 'plain', errorCallbackURL: '/oops' });
    const state = new URL(start.json.url).searchParams.get('state')!;

    // The rows as the previous version wrote them.
    await d.core
      .db('idempotency_keys')
      .where({ key: 'written-before' })
      .update({ response_body: JSON.stringify(first.json) });
    await d.core
      .db('verifications')
      .where({ identifier: `auth-state:${sha256(state)}` })
      .update({ identifier: `auth-state:${state}` });

    await expect(secretsAtRest(d.core.db, {})).rejects.toThrow(/must be sealed with the daemon's secret/);
    await secretsAtRest(d.core.db, seal(d));
    // A second run changes nothing.
    await secretsAtRest(d.core.db, seal(d));

    const stored = await storedAnswer(d, 'written-before');
    expect(stored).not.toContain(first.json.token);
    const replay = await api.post('/v1/organization-access-tokens/', { comment: 'before', scopes: [] }, { headers });
    expect(replay.status).toBe(201);
    expect(replay.json).toEqual(first.json);

    expect(
      await d.core
        .db('verifications')
        .where({ identifier: `auth-state:${state}` })
        .first(),
    ).toBeUndefined();
    expect(
      await d.core
        .db('verifications')
        .where({ identifier: `auth-state:${sha256(state)}` })
        .first(),
    ).toBeDefined();
    expect((await c.get(`/api/auth/callback/plain?state=${state}`)).headers.location).toBe('/oops?error=no_code');
  });
});

/** Every row of every table, as text: where a secret handed out must not appear. */
async function everything(d: TestDaemon): Promise<string> {
  const db = d.core.db;
  const tables =
    testDialect === 'postgres'
      ? (
          (await db('information_schema.tables').select('table_name').where({ table_schema: 'public' })) as Array<{
            table_name: string;
          }>
        ).map((row) => row.table_name)
      : ((await db('sqlite_master').select('name').where({ type: 'table' })) as Array<{ name: string }>).map(
          (row) => row.name,
        );
  expect(tables).toContain('idempotency_keys');
  const dumps: string[] = [];
  for (const table of tables) dumps.push(`${table}: ${JSON.stringify(await db(table).select('*'))}`);
  return dumps.join('\n');
}

describe('what a copy of the database holds', () => {
  it('none of the tokens, keys and secrets Till hands out, as they were handed out', async () => {
    const d = daemon();
    const handedOut = new Map<string, string>();
    const browser = new TestClient(d.url, { origin: d.url });
    const { email, token: sessionToken } = await signUpUser(browser);
    handedOut.set('session token', sessionToken);
    const apiKey = await browser.post('/api/auth/api-key/create', {});
    handedOut.set('API key', apiKey.json.key);

    const merchant = await createMerchant(d);
    handedOut.set('organization access token', merchant.token);
    const idempotent = (key: string) => ({ headers: { 'idempotency-key': key } });
    const oat = await merchant.api.post(
      '/v1/organization-access-tokens/',
      { comment: 'scan', scopes: [] },
      idempotent('scan-oat'),
    );
    handedOut.set('organization access token (idempotent)', oat.json.token);
    const customer = await merchant.api.post('/v1/customers/', { email: uniqueEmail('customer') });
    const portal = await merchant.api.post(
      '/v1/customer-sessions/',
      { customer_id: customer.json.id },
      idempotent('scan-cst'),
    );
    expect(portal.status, portal.text).toBe(201);
    handedOut.set('customer session token', portal.json.token);
    const endpoint = await merchant.api.post(
      '/v1/webhooks/endpoints',
      { url: 'http://127.0.0.1:9/hook', format: 'raw', events: ['order.paid'] },
      idempotent('scan-whsec'),
    );
    handedOut.set('webhook secret', endpoint.json.secret);
    const keys = await merchant.api.post('/v1/benefits/', {
      type: 'license_keys',
      description: 'Scan license',
      properties: {},
    });
    const licensed = await createProduct(merchant);
    await merchant.api.post(`/v1/products/${licensed.id}/benefits`, { benefits: [keys.json.id] });
    await purchase(d, merchant, licensed.id);
    await d.core.scheduler.drain();
    const [licenseKey] = (await merchant.api.get('/v1/license-keys/')).json.items;
    handedOut.set('license key', licenseKey.key);

    const reset = await new TestClient(d.url).post('/api/auth/request-password-reset', { email, redirectTo: '/r' });
    expect(reset.status).toBe(200);
    const mailed = async (kind: string, pattern: RegExp) => {
      // The reset mail is written by a background step after the answer (so timing tells nothing).
      await d.core.background.settled();
      const [mail] = await d.core.mail.list({ to: email, kind });
      return pattern.exec((await d.core.mail.get(mail!.id))!.text)![1]!;
    };
    handedOut.set('password reset token', await mailed('reset-password', /\/reset-password\/([A-Za-z0-9]+)\?/));
    expect((await browser.post('/api/auth/send-verification-email', { email })).status).toBe(200);
    handedOut.set('e-mail verification token', await mailed('verify-email', /token=([\w.-]+)/));
    expect((await browser.post('/api/auth/delete-user', {})).status).toBe(200);
    handedOut.set('account deletion token', await mailed('delete-account', /--token ([0-9a-z]+)/));

    const social = await new TestClient(d.url).post('/api/auth/sign-in/social', { provider: 'plain' });
    handedOut.set('OAuth state', new URL(social.json.url).searchParams.get('state')!);
    handedOut.set('password', DEFAULT_PASSWORD);

    const dump = await everything(d);
    for (const [what, value] of handedOut) {
      expect(value.length, what).toBeGreaterThanOrEqual(16);
      // The random part alone, without a well-known prefix, must not be there either.
      const random = value.replace(/^(till_oat_|till_cst_|whsec_)/, '');
      expect(dump.includes(random), `${what} is stored as handed out`).toBe(false);
    }
  });
});
