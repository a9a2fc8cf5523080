import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { addMember, signedInUser } from '../helpers/organizations.js';
import { createBenefitVia as benefit, createProductVia as create, locs, outboxEvents } from '../helpers/products.js';
import { bearerClient, createMerchant } from '../helpers/v1.js';

// Who may do what with products: tenants, members' roles, token scopes; and what the API says about itself.

const daemon = useTestDaemon();
const events = (organizationId: string, type: string) => outboxEvents(daemon(), organizationId, type);

describe('/v1/products access', () => {
  it('hides another organization’s products behind 404 on every route and changes nothing', async () => {
    const a = await createMerchant(daemon());
    const b = await createMerchant(daemon());
    const product = await create(b, { metadata: { owner: 'b' } });
    const bBenefit = await benefit(b);
    expect((await a.api.get(`/v1/products/${product.id}`)).status).toBe(404);
    expect((await a.api.get(`/v1/products/${product.id}`)).json).toEqual({
      error: 'ResourceNotFound',
      detail: expect.any(String),
    });
    expect(
      (await a.api.call('PATCH', `/v1/products/${product.id}`, { body: { name: 'Hijacked', is_archived: true } }))
        .status,
    ).toBe(404);
    expect(
      (await a.api.call('PATCH', `/v1/products/${product.id}`, { body: { prices: [{ amount_type: 'free' }] } })).status,
    ).toBe(404);
    expect((await a.api.post(`/v1/products/${product.id}/benefits`, { benefits: [] })).status).toBe(404);
    expect((await a.api.post(`/v1/products/${product.id}/benefits`, { benefits: [bBenefit.id] })).status).toBe(404);
    expect((await a.api.get('/v1/products/')).json.items).toEqual([]);
    expect((await a.api.get('/v1/products/', { query: { organization_id: b.organization.id } })).json.items).toEqual(
      [],
    );
    expect((await a.api.get('/v1/products/', { query: { id: product.id } })).json.items).toEqual([]);
    expect((await b.api.get(`/v1/products/${product.id}`)).json).toEqual(product);
    expect(await events(b.organization.id, 'product.updated')).toEqual([]);

    const own = await create(a);
    const attach = await a.api.post(`/v1/products/${own.id}/benefits`, { benefits: [bBenefit.id] });
    expect(attach.status).toBe(422);
    const cross = await a.api.post('/v1/products/', {
      name: 'Sneaky',
      prices: [{ amount_type: 'free' }],
      organization_id: b.organization.id,
    });
    expect(cross.status).toBe(422);
    expect(locs(cross)).toEqual([['body', 'organization_id']]);
    expect((await b.api.get('/v1/products/')).json.pagination.total_count).toBe(1);
  });

  it('lets members read and only owners and admins write; tokens need the products scope', async () => {
    const merchant = await createMerchant(daemon());
    const product = await create(merchant);
    const reader = await signedInUser(daemon(), 'Reader');
    await addMember(daemon(), merchant.organization.id, reader.user.id, 'member');
    const asMember = bearerClient(daemon(), reader.token);
    expect((await asMember.get(`/v1/products/${product.id}`)).status).toBe(200);
    expect((await asMember.get('/v1/products/')).json.pagination.total_count).toBe(1);
    for (const response of [
      await asMember.post('/v1/products/', {
        name: 'Nope',
        prices: [{ amount_type: 'free' }],
        organization_id: merchant.organization.id,
      }),
      await asMember.call('PATCH', `/v1/products/${product.id}`, { body: { name: 'Nope' } }),
      await asMember.post(`/v1/products/${product.id}/benefits`, { benefits: [] }),
    ]) {
      expect(response.status).toBe(403);
      expect(response.json.error).toBe('NotPermitted');
    }
    expect(
      (
        await merchant.session.post('/v1/products/', {
          name: 'By the owner',
          prices: [{ amount_type: 'free' }],
          organization_id: merchant.organization.id,
        })
      ).status,
    ).toBe(201);

    const readOnly = await createMerchant(daemon(), { scopes: ['products:read'] });
    expect((await readOnly.api.get('/v1/products/')).status).toBe(200);
    const refused = await readOnly.api.post('/v1/products/', { name: 'Nope', prices: [{ amount_type: 'free' }] });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toBe('NotPermitted');
  });

  it('replays a create with the same Idempotency-Key instead of making a second product', async () => {
    const merchant = await createMerchant(daemon());
    const body = { name: 'Once', prices: [{ amount_type: 'free' }] };
    const first = await merchant.api.post('/v1/products/', body, { headers: { 'idempotency-key': 'create-once' } });
    const again = await merchant.api.post('/v1/products/', body, { headers: { 'idempotency-key': 'create-once' } });
    expect(again.status).toBe(201);
    expect(again.json).toEqual(first.json);
    expect((await merchant.api.get('/v1/products/')).json.pagination.total_count).toBe(1);
  });
});

describe('/v1/openapi.json', () => {
  it('documents the product operations with Polar’s schema names', async () => {
    const merchant = await createMerchant(daemon());
    const document = (await merchant.api.get('/v1/openapi.json')).json;
    expect(Object.keys(document.paths['/v1/products/'])).toEqual(['get', 'post']);
    expect(Object.keys(document.paths['/v1/products/{id}'])).toEqual(['get', 'patch']);
    expect(document.paths['/v1/products/{id}/benefits'].post.operationId).toBe('products:update_benefits');
    const product = document.components.schemas.Product;
    expect(product.required).toEqual(
      expect.arrayContaining([
        'id',
        'prices',
        'benefits',
        'medias',
        'attached_custom_fields',
        'is_recurring',
        'metadata',
      ]),
    );
    for (const name of [
      'ProductPriceFixed',
      'ProductPriceCustom',
      'ProductPriceFree',
      'ProductPriceMeteredUnit',
      'ProductCreate',
      'ProductUpdate',
      'ProductBenefitsUpdate',
      'AttachedCustomField',
      'ProductMediaFileRead',
      'ListResource_Product_',
    ]) {
      expect(document.components.schemas[name], name).toBeDefined();
    }
  });
});
