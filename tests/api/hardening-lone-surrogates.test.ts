import { beforeAll, describe, expect, it } from 'vitest';
import { adminPost } from '../helpers/api-keys.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';

// JSON.stringify writes a lone surrogate as the escape `\ud800`, which is what a client sends.
const LONE = 'a\ud800';
const LONE_KEY = '\udc00key';
const REPLACED = 'a\uFFFD';
const REPLACED_KEY = '\uFFFDkey';

const daemon = useTestDaemon();
let merchant: Merchant;
beforeAll(async () => {
  merchant = await createMerchant(daemon());
});

describe('lone surrogates in metadata follow the plain-text rule (U+FFFD) on both databases', () => {
  it('/v1 customers: keys and values are stored with U+FFFD, and metadata filters keep working', async () => {
    const created = await merchant.api.post('/v1/customers/', {
      email: uniqueEmail('surrogate'),
      name: `n${LONE}`,
      metadata: { k: LONE, [LONE_KEY]: 'v' },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json.name).toBe(`n${REPLACED}`);
    expect(created.json.metadata).toEqual({ k: REPLACED, [REPLACED_KEY]: 'v' });

    const patched = await merchant.api.call('PATCH', `/v1/customers/${created.json.id}`, {
      body: { metadata: { k: LONE, other: `b${LONE}` } },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json.metadata).toEqual({ k: REPLACED, other: `b${REPLACED}` });

    const ids = async (query: Record<string, string>) => {
      const listed = await merchant.api.get('/v1/customers/', { query });
      expect(listed.status, listed.text).toBe(200);
      return listed.json.items.map((customer: { id: string }) => customer.id);
    };
    expect(await ids({ 'metadata[k]': REPLACED })).toEqual([created.json.id]);
    expect(await ids({ 'metadata[other]': 'nothing' })).toEqual([]);
    expect((await merchant.api.get(`/v1/customers/${created.json.id}`)).json.metadata).toEqual({
      k: REPLACED,
      other: `b${REPLACED}`,
    });
  });

  it('/v1 products: the same, and the organization’s product filters still answer', async () => {
    const created = await merchant.api.post('/v1/products/', {
      name: 'Surrogates',
      prices: [{ amount_type: 'free' }],
      metadata: { [LONE_KEY]: LONE },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json.metadata).toEqual({ [REPLACED_KEY]: REPLACED });
    const listed = await merchant.api.get('/v1/products/', { query: { [`metadata[${REPLACED_KEY}]`]: REPLACED } });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json.items.map((product: { id: string }) => product.id)).toEqual([created.json.id]);
  });

  it('/api/auth: organization and API key metadata, and the operator’s API', async () => {
    const client = merchant.owner.client;
    const organization = await client.post('/api/auth/organization/create', {
      name: `Org ${LONE}`,
      slug: `surrogates-${Date.now()}`,
      metadata: { [LONE_KEY]: LONE },
    });
    expect(organization.status, organization.text).toBe(200);
    expect(organization.json.name).toBe(`Org ${REPLACED}`);
    expect(organization.json.metadata).toEqual({ [REPLACED_KEY]: REPLACED });
    const full = await client.get('/api/auth/organization/get-full-organization', {
      query: { organizationId: organization.json.id },
    });
    // Better Auth answers this route's metadata as the stored JSON text.
    expect(JSON.parse(full.json.metadata)).toEqual({ [REPLACED_KEY]: REPLACED });

    const key = await client.post('/api/auth/api-key/create', { name: 'k', metadata: { [LONE_KEY]: LONE } });
    expect(key.status, key.text).toBe(200);
    expect(key.json.metadata).toEqual({ [REPLACED_KEY]: REPLACED });

    const adminKey = await adminPost(daemon(), '/api-keys/create', {
      userId: merchant.owner.user.id,
      metadata: { k: LONE },
    });
    expect(adminKey.status, adminKey.text).toBe(200);
    expect(adminKey.json.metadata).toEqual({ k: REPLACED });
  });
});
