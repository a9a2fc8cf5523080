import { Polar } from '@polar-sh/sdk';
import { Customer$inboundSchema } from '@polar-sh/sdk/models/components/customer.js';
import { CustomerPortalCustomer$inboundSchema } from '@polar-sh/sdk/models/components/customerportalcustomer.js';
import { CustomerSession$inboundSchema } from '@polar-sh/sdk/models/components/customersession.js';
import { CustomerState$inboundSchema } from '@polar-sh/sdk/models/components/customerstate.js';
import { ListResourceCustomer$inboundSchema } from '@polar-sh/sdk/models/components/listresourcecustomer.js';
import { HTTPValidationError } from '@polar-sh/sdk/models/errors/httpvalidationerror.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { SDKError } from '@polar-sh/sdk/models/errors/sdkerror.js';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import { bearerClient, createMerchant } from '../helpers/v1.js';

// @polar-sh/sdk 0.47.1 against the customer routes: every answer goes through the SDK's strict response schemas,
// and the raw bodies are parsed with those schemas too, so a missing or mistyped field fails here.

const daemon = useTestDaemon();

describe('@polar-sh/sdk customers', () => {
  it('creates, gets, updates, reads the state of and deletes customers, by id and by external id', async () => {
    const { sdk } = await createMerchant(daemon());
    const email = uniqueEmail('sdk');
    const created = await sdk.customers.create({
      email,
      name: 'Grace Hopper',
      externalId: 'user-1',
      billingAddress: { line1: '1 Navy Way', city: 'Arlington', state: 'VA', postalCode: '22201', country: 'US' },
      taxId: '911144442',
      metadata: { plan: 'pro', seats: 2, beta: true },
    });
    expect(created).toMatchObject({
      email,
      name: 'Grace Hopper',
      externalId: 'user-1',
      type: 'individual',
      emailVerified: false,
      billingAddress: { state: 'US-VA', country: 'US' },
      taxId: ['911144442', 'us_ein'],
      metadata: { plan: 'pro', seats: 2, beta: true },
      deletedAt: null,
    });
    expect(created.createdAt).toBeInstanceOf(Date);

    expect((await sdk.customers.get({ id: created.id })).id).toBe(created.id);
    expect((await sdk.customers.getExternal({ externalId: 'user-1' })).id).toBe(created.id);

    const updated = await sdk.customers.update({
      id: created.id,
      customerUpdate: { name: 'Rear Admiral Hopper', metadata: { plan: 'team' } },
    });
    expect(updated).toMatchObject({ name: 'Rear Admiral Hopper', metadata: { plan: 'team' } });
    expect(updated.modifiedAt).toBeInstanceOf(Date);
    const newEmail = uniqueEmail('sdk-new');
    const byExternal = await sdk.customers.updateExternal({
      externalId: 'user-1',
      customerUpdateExternalID: { email: newEmail, name: 'Grace' },
    });
    expect(byExternal).toMatchObject({ email: newEmail, name: 'Grace' });

    const state = await sdk.customers.getState({ id: created.id });
    expect(state).toMatchObject({ id: created.id, activeSubscriptions: [], grantedBenefits: [], activeMeters: [] });
    expect((await sdk.customers.getStateExternal({ externalId: 'user-1' })).id).toBe(created.id);

    // better-auth's flow: an existing customer found by e-mail gets the user's id as external id.
    const second = await sdk.customers.create({ email: uniqueEmail('sdk2') });
    expect((await sdk.customers.update({ id: second.id, customerUpdate: { externalId: 'user-2' } })).externalId).toBe(
      'user-2',
    );
    await expect(
      sdk.customers.update({ id: second.id, customerUpdate: { externalId: 'user-3' } }),
    ).rejects.toBeInstanceOf(HTTPValidationError);

    await sdk.customers.deleteExternal({ externalId: 'user-2' });
    await sdk.customers.delete({ id: created.id });
    await expect(sdk.customers.get({ id: created.id })).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(sdk.customers.getExternal({ externalId: 'user-2' })).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(sdk.customers.getState({ id: created.id })).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(sdk.customers.delete({ id: created.id })).rejects.toBeInstanceOf(ResourceNotFound);
  });

  it('reports validation errors and duplicates as HTTPValidationError with Polar’s loc', async () => {
    const { sdk } = await createMerchant(daemon());
    const email = uniqueEmail('dup');
    await sdk.customers.create({ email });
    const duplicate = await sdk.customers.create({ email }).catch((error: unknown) => error);
    expect(duplicate).toBeInstanceOf(HTTPValidationError);
    expect((duplicate as HTTPValidationError).detail?.[0]).toMatchObject({
      loc: ['body', 'email'],
      msg: 'A customer with this email address already exists.',
    });
    // The SDK checks the country itself; the daemon checks what it cannot, such as lengths and tax ids.
    const tooLong = await sdk.customers
      .create({ email: uniqueEmail(), name: 'x'.repeat(257) })
      .catch((error: unknown) => error);
    expect(tooLong).toBeInstanceOf(HTTPValidationError);
    expect((tooLong as HTTPValidationError).detail?.[0]?.loc).toEqual(['body', 'name']);
    const badTaxId = await sdk.customers
      .create({ email: uniqueEmail(), billingAddress: { country: 'DE' }, taxId: 'DE1' })
      .catch((error: unknown) => error);
    expect(badTaxId).toBeInstanceOf(HTTPValidationError);
    expect((badTaxId as HTTPValidationError).detail?.[0]).toMatchObject({
      loc: ['body', 'tax_id'],
      msg: 'Invalid tax ID.',
    });
  });

  it('pages through the list to the last page with for await, and filters by e-mail and metadata', async () => {
    const { sdk } = await createMerchant(daemon());
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        (
          await sdk.customers.create({
            email: uniqueEmail(`page${i}`),
            metadata: { cohort: i % 2 === 0 ? 'even' : 'odd' },
          })
        ).id,
      );
      daemon().clock.advance(1000);
    }
    const seen: string[] = [];
    let pages = 0;
    for await (const page of await sdk.customers.list({ limit: 2, sorting: ['created_at'] })) {
      pages += 1;
      seen.push(...page.result.items.map((customer) => customer.id));
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(ids);

    const first = await sdk.customers.get({ id: ids[0]! });
    const byEmail = await sdk.customers.list({ email: first.email! });
    expect(byEmail.result.items.map((customer) => customer.id)).toEqual([ids[0]]);
    const even = await sdk.customers.list({ metadata: { cohort: 'even' }, sorting: ['created_at'] });
    expect(even.result.items.map((customer) => customer.id)).toEqual([ids[0], ids[2], ids[4]]);
  });

  it('creates customer sessions whose token the SDK uses for the customer portal', async () => {
    const { sdk } = await createMerchant(daemon());
    const customer = await sdk.customers.create({ email: uniqueEmail('portal'), externalId: 'portal-1', name: 'Pat' });
    const session = await sdk.customerSessions.create({
      externalCustomerId: 'portal-1',
      returnUrl: 'https://shop.example/account',
    });
    expect(session).toMatchObject({
      customerId: customer.id,
      returnUrl: 'https://shop.example/account',
      customer: { id: customer.id },
    });
    expect(session.expiresAt.getTime() - session.createdAt.getTime()).toBe(3_600_000);
    expect((await sdk.customerSessions.create({ customerId: customer.id })).customerId).toBe(customer.id);

    const asCustomer = new Polar({ accessToken: session.token, serverURL: daemon().url });
    const me = await asCustomer.customerPortal.customers.get({ customerSession: session.token });
    expect(me).toMatchObject({ id: customer.id, email: customer.email, name: 'Pat', oauthAccounts: {} });
    const updated = await asCustomer.customerPortal.customers.update(
      { customerSession: session.token },
      {
        billingName: 'Pat Ltd',
        billingAddress: { country: 'GB', city: 'London', postalCode: 'SW1A 1AA' },
        taxId: 'GB123456789',
      },
    );
    expect(updated).toMatchObject({
      billingName: 'Pat Ltd',
      taxId: ['GB123456789', 'gb_vat'],
      billingAddress: { country: 'GB' },
    });

    await expect(asCustomer.customerPortal.customers.get({ customerSession: 'till_cst_wrong' })).rejects.toBeInstanceOf(
      SDKError,
    );
    daemon().clock.advance(3_600_000);
    await expect(asCustomer.customerPortal.customers.get({ customerSession: session.token })).rejects.toBeInstanceOf(
      SDKError,
    );
  });

  it('answers with bodies the SDK’s own schemas accept', async () => {
    const merchant = await createMerchant(daemon());
    const { api } = merchant;
    const created = await api.post('/v1/customers/', {
      email: uniqueEmail('raw'),
      external_id: 'raw-1',
      billing_address: { country: 'SE' },
    });
    const team = await api.post('/v1/customers/', { type: 'team', name: 'A team without an address' });
    expect(team.status, team.text).toBe(201);
    const session = await api.post('/v1/customer-sessions/', { customer_id: created.json.id });
    const portal = bearerClient(daemon(), session.json.token);
    const bodies: Array<[{ parse(value: unknown): unknown }, unknown]> = [
      [Customer$inboundSchema, created.json],
      [Customer$inboundSchema, team.json],
      [Customer$inboundSchema, (await api.get(`/v1/customers/${created.json.id}`)).json],
      [
        Customer$inboundSchema,
        (await api.call('PATCH', '/v1/customers/external/raw-1', { body: { name: 'Raw' } })).json,
      ],
      [CustomerState$inboundSchema, (await api.get('/v1/customers/external/raw-1/state')).json],
      [CustomerState$inboundSchema, (await api.get(`/v1/customers/${team.json.id}/state`)).json],
      [ListResourceCustomer$inboundSchema, (await api.get('/v1/customers/')).json],
      [CustomerSession$inboundSchema, session.json],
      [CustomerPortalCustomer$inboundSchema, (await portal.get('/v1/customer-portal/customers/me')).json],
    ];
    for (const [schema, body] of bodies) expect(() => schema.parse(body)).not.toThrow();
  });
});
