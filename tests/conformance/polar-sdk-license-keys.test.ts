import { Polar } from '@polar-sh/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalog.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';
import { purchase } from '../helpers/purchases.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';

let daemon: TestDaemon;
beforeAll(async () => {
  daemon = await startTestDaemon();
});
afterAll(async () => {
  await daemon.stop();
});

/** A customer who bought a product with a custom and a license_keys benefit, with their grants done. */
async function keyHolder(merchant: Merchant, properties: Record<string, unknown>) {
  const benefit = await merchant.api.post('/v1/benefits/', {
    type: 'license_keys',
    description: 'Desktop app',
    properties: { prefix: 'DESK', expires: null, activations: null, limit_usage: null, ...properties },
  });
  const note = await merchant.api.post('/v1/benefits/', {
    type: 'custom',
    description: 'Support line',
    properties: { note: 'Call +1 555 0100' },
  });
  expect(benefit.status, benefit.text).toBe(201);
  const product = await createProduct(merchant);
  await merchant.api.post(`/v1/products/${product.id}/benefits`, { benefits: [benefit.json.id, note.json.id] });
  const bought = await purchase(daemon, merchant, product.id);
  await daemon.core.scheduler.drain();
  const keys = await merchant.sdk.licenseKeys.list({
    organizationId: merchant.organization.id,
    benefitId: benefit.json.id,
  });
  const [key] = keys.result.items;
  return { benefitId: benefit.json.id as string, noteId: note.json.id as string, bought, key: key! };
}

describe('@polar-sh/sdk 0.47 license keys and portal grants against Till', () => {
  it('validates, activates and deactivates through the public calls, and the merchant calls', async () => {
    const merchant = await createMerchant(daemon);
    const { key, benefitId, bought } = await keyHolder(merchant, {
      activations: { limit: 2, enable_customer_admin: true },
      limit_usage: 3,
    });
    expect(key).toMatchObject({ status: 'granted', limitActivations: 2, limitUsage: 3, usage: 0, benefitId });
    expect(key.key).toMatch(/^DESK-/);
    expect(key.displayKey).toBe(`****-${key.key.slice(-6)}`);

    const anonymous = new Polar({ serverURL: daemon.url });
    const organizationId = merchant.organization.id;
    const activation = await anonymous.customerPortal.licenseKeys.activate({
      key: key.key,
      organizationId,
      label: 'laptop',
      conditions: { major: 4 },
      meta: { os: 'linux' },
    });
    expect(activation).toMatchObject({ label: 'laptop', meta: { os: 'linux' }, licenseKeyId: key.id });
    expect(activation.licenseKey.key).toBe(key.key);

    const validated = await anonymous.customerPortal.licenseKeys.validate({
      key: key.key,
      organizationId,
      activationId: activation.id,
      conditions: { major: 4 },
      incrementUsage: 2,
      benefitId,
      customerId: bought.customerId,
    });
    expect(validated).toMatchObject({ usage: 2, validations: 1, activation: { id: activation.id } });
    // Conditions other than the activation's, a foreign benefit, too much usage: refused as Polar does.
    await expect(
      anonymous.customerPortal.licenseKeys.validate({
        key: key.key,
        organizationId,
        activationId: activation.id,
        conditions: { major: 5 },
      }),
    ).rejects.toMatchObject({ name: 'ResourceNotFound', detail: 'License key does not match required conditions' });
    await expect(
      anonymous.customerPortal.licenseKeys.validate({ key: key.key, organizationId, incrementUsage: 2 }),
    ).rejects.toMatchObject({ statusCode: 403 });
    const raw = await new TestClient(daemon.url).post('/v1/customer-portal/license-keys/validate', {
      key: key.key,
      organization_id: organizationId,
      increment_usage: 2,
    });
    expect(raw.json).toEqual({ error: 'NotPermitted', detail: 'License key only has 1 more usages.' });
    await expect(
      anonymous.customerPortal.licenseKeys.validate({ key: 'DESK-NOPE', organizationId }),
    ).rejects.toMatchObject({ name: 'ResourceNotFound' });

    // The merchant's view and calls.
    const sdk = merchant.sdk;
    const full = await sdk.licenseKeys.get({ id: key.id });
    expect(full.activations.map((a) => a.id)).toEqual([activation.id]);
    expect((await sdk.licenseKeys.getActivation({ id: key.id, activationId: activation.id })).label).toBe('laptop');
    const second = await sdk.licenseKeys.activate({ key: key.key, organizationId, label: 'desktop' });
    await expect(sdk.licenseKeys.activate({ key: key.key, organizationId, label: 'third' })).rejects.toMatchObject({
      statusCode: 403,
    });
    await sdk.licenseKeys.deactivate({ key: key.key, organizationId, activationId: second.id });
    await anonymous.customerPortal.licenseKeys.deactivate({
      key: key.key,
      organizationId,
      activationId: activation.id,
    });
    await expect(
      anonymous.customerPortal.licenseKeys.deactivate({ key: key.key, organizationId, activationId: activation.id }),
    ).rejects.toMatchObject({ name: 'ResourceNotFound' });
    expect((await sdk.licenseKeys.get({ id: key.id })).activations).toEqual([]);
    expect((await sdk.licenseKeys.validate({ key: key.key, organizationId })).validations).toBe(2);

    const disabled = await sdk.licenseKeys.update({
      id: key.id,
      licenseKeyUpdate: { status: 'disabled', limitUsage: 100, expiresAt: new Date('2030-01-01T00:00:00Z') },
    });
    expect(disabled).toMatchObject({ status: 'disabled', limitUsage: 100 });
    await expect(anonymous.customerPortal.licenseKeys.validate({ key: key.key, organizationId })).rejects.toMatchObject(
      { name: 'ResourceNotFound', detail: 'License key is no longer active.' },
    );
    await sdk.licenseKeys.update({ id: key.id, licenseKeyUpdate: { status: 'granted', expiresAt: new Date(0) } });
    await expect(anonymous.customerPortal.licenseKeys.validate({ key: key.key, organizationId })).rejects.toMatchObject(
      { detail: 'License key has expired.' },
    );

    // Another organization's merchant cannot see the key, nor validate it as theirs.
    const other = await createMerchant(daemon);
    await expect(other.sdk.licenseKeys.get({ id: key.id })).rejects.toMatchObject({ name: 'ResourceNotFound' });
    await expect(
      anonymous.customerPortal.licenseKeys.validate({ key: key.key, organizationId: other.organization.id }),
    ).rejects.toMatchObject({ name: 'ResourceNotFound' });
  });

  it('shows the customer their grants and keys in the portal, with the custom note', async () => {
    const merchant = await createMerchant(daemon);
    const { key, noteId, bought } = await keyHolder(merchant, {});
    const customer = new Polar({ accessToken: bought.customerSessionToken, serverURL: daemon.url });
    const security = { customerSession: bought.customerSessionToken };
    const grants = await customer.customerPortal.benefitGrants.list(security, {});
    expect(grants.result.items).toHaveLength(2);
    const noteGrant = grants.result.items.find((grant) => grant.benefitId === noteId)!;
    expect(noteGrant.benefit).toMatchObject({ type: 'custom', properties: { note: 'Call +1 555 0100' } });
    const one = await customer.customerPortal.benefitGrants.get(security, { id: noteGrant.id });
    expect(one).toMatchObject({ id: noteGrant.id, isGranted: true, customerId: bought.customerId });

    const keys = await customer.customerPortal.licenseKeys.list(security, {});
    expect(keys.result.items.map((item) => item.id)).toEqual([key.id]);
    expect((await customer.customerPortal.licenseKeys.get(security, { id: key.id })).key).toBe(key.key);

    // Another customer's grant and key are not found.
    const stranger = await keyHolder(merchant, {});
    const theirs = { customerSession: stranger.bought.customerSessionToken };
    await expect(customer.customerPortal.benefitGrants.get(theirs, { id: 'x' })).rejects.toMatchObject({
      name: 'ResourceNotFound',
    });
    await expect(customer.customerPortal.licenseKeys.get(theirs, { id: key.id })).rejects.toMatchObject({
      name: 'ResourceNotFound',
    });
    await expect(customer.customerPortal.benefitGrants.get(theirs, { id: noteGrant.id })).rejects.toMatchObject({
      name: 'ResourceNotFound',
    });
  });

  it('never passes the activation or usage limit under 20 concurrent calls', async () => {
    const merchant = await createMerchant(daemon);
    const { key } = await keyHolder(merchant, {
      activations: { limit: 5, enable_customer_admin: false },
      limit_usage: 7,
    });
    const client = new TestClient(daemon.url);
    const organizationId = merchant.organization.id;
    const activations = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        client.post('/v1/customer-portal/license-keys/activate', {
          key: key.key,
          organization_id: organizationId,
          label: `machine ${index}`,
        }),
      ),
    );
    expect(activations.filter((response) => response.status === 200)).toHaveLength(5);
    for (const refused of activations.filter((response) => response.status !== 200))
      expect(refused.json).toEqual({ error: 'NotPermitted', detail: 'License key activation limit already reached' });
    expect((await merchant.sdk.licenseKeys.get({ id: key.id })).activations).toHaveLength(5);

    const validations = await Promise.all(
      Array.from({ length: 20 }, () =>
        client.post('/v1/customer-portal/license-keys/validate', {
          key: key.key,
          organization_id: organizationId,
          increment_usage: 2,
        }),
      ),
    );
    // 7 allows three increments of 2; the fourth would pass it.
    expect(validations.filter((response) => response.status === 200)).toHaveLength(3);
    expect(validations.filter((response) => response.status === 403)).toHaveLength(17);
    expect(await merchant.sdk.licenseKeys.get({ id: key.id })).toMatchObject({ usage: 6, validations: 3 });
  });
});
