import { polar, portal } from '@polar-sh/better-auth';
import { Polar } from '@polar-sh/sdk';
import { betterAuth } from 'better-auth';
import { memoryAdapter } from 'better-auth/adapters/memory';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';

// @polar-sh/better-auth 1.8.4 with createCustomerOnSignUp, in a real Better Auth 1.7.25 server in this process, its
// Polar client pointed at Till. Its hooks make these SDK calls: on sign-up customers.list by e-mail, customers.create
// (e-mail and name), then customers.list again and customers.update by id to set the external id to the user id; on
// a user update customers.updateExternal (e-mail and name); on a deletion customers.list by e-mail and
// customers.delete. Sign-up fails if a call fails; update and delete only log, so Till's state is what is checked.

const daemon = useTestDaemon();
const PASSWORD = 'correct horse battery staple';
const ORIGIN = 'http://app.example';

function appWithPlugin(merchant: Merchant) {
  const errors: string[] = [];
  const auth = betterAuth({
    baseURL: ORIGIN,
    secret: 'a-better-auth-secret-of-at-least-32-characters',
    database: memoryAdapter({ user: [], session: [], account: [], verification: [] }),
    emailAndPassword: { enabled: true },
    user: { deleteUser: { enabled: true } },
    logger: { disabled: false, log: (level, message) => void (level === 'error' && errors.push(message)) },
    plugins: [
      polar({
        // The SDK's paths start with /v1, so its server URL is the daemon's root.
        client: new Polar({ accessToken: merchant.token, serverURL: daemon().url }),
        createCustomerOnSignUp: true,
        // The plugin needs one endpoint plugin; the portal's adds routes only and calls nothing at sign-up.
        use: [portal()],
      }),
    ],
  });
  async function call(path: string, body: unknown, cookie?: string) {
    const response = await auth.handler(
      new Request(`${ORIGIN}/api/auth${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: ORIGIN, ...(cookie ? { cookie } : {}) },
        body: JSON.stringify(body),
      }),
    );
    const text = await response.text();
    return { status: response.status, text, json: text ? JSON.parse(text) : null, headers: response.headers };
  }
  return { call, errors };
}

function sessionCookie(headers: Headers): string {
  return headers
    .getSetCookie()
    .map((cookie) => cookie.split(';')[0]!)
    .join('; ');
}

async function customersByEmail(merchant: Merchant, email: string) {
  return (await merchant.api.get('/v1/customers/', { query: { email } })).json.items as Array<Record<string, unknown>>;
}

describe('@polar-sh/better-auth against Till', () => {
  it('signs a user up: Till gets a customer with the Better Auth user id as its external id', async () => {
    const merchant = await createMerchant(daemon());
    const app = appWithPlugin(merchant);
    const email = uniqueEmail('plugin');
    const signUp = await app.call('/sign-up/email', { email, password: PASSWORD, name: 'Ada Lovelace' });
    expect(signUp.status, signUp.text).toBe(200);
    const userId = signUp.json.user.id as string;

    const customers = await customersByEmail(merchant, email);
    expect(customers).toHaveLength(1);
    expect(customers[0]).toMatchObject({ email, name: 'Ada Lovelace', external_id: userId });
    const byExternal = await merchant.api.get(`/v1/customers/external/${userId}`);
    expect(byExternal.status).toBe(200);
    expect(byExternal.json.id).toBe(customers[0]!.id);

    // The user changes their name: the plugin updates the customer by external id.
    const cookie = sessionCookie(signUp.headers);
    const updated = await app.call('/update-user', { name: 'Ada King' }, cookie);
    expect(updated.status, updated.text).toBe(200);
    expect((await merchant.api.get(`/v1/customers/external/${userId}`)).json).toMatchObject({
      id: customers[0]!.id,
      name: 'Ada King',
      email,
      external_id: userId,
    });

    // The user deletes their account: the plugin finds the customer by e-mail and deletes it.
    const deleted = await app.call('/delete-user', { password: PASSWORD }, cookie);
    expect(deleted.status, deleted.text).toBe(200);
    expect(await customersByEmail(merchant, email)).toEqual([]);
    expect((await merchant.api.get(`/v1/customers/${String(customers[0]!.id)}`)).status).toBe(404);
    expect(app.errors).toEqual([]);
  });

  it('links a customer the merchant already had under that e-mail instead of creating another', async () => {
    const merchant = await createMerchant(daemon());
    const email = uniqueEmail('plugin');
    const before = await merchant.api.post('/v1/customers/', { email, name: 'Old Name' });
    expect(before.status).toBe(201);
    const app = appWithPlugin(merchant);
    const signUp = await app.call('/sign-up/email', { email, password: PASSWORD, name: 'Grace Hopper' });
    expect(signUp.status, signUp.text).toBe(200);
    const customers = await customersByEmail(merchant, email);
    expect(customers.map((customer) => customer.id)).toEqual([before.json.id]);
    expect(customers[0]!.external_id).toBe(signUp.json.user.id);
    expect(app.errors).toEqual([]);
  });
});
