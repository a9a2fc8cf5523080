import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { findPrice, findProduct } from '../../src/core/products/read.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { uploadFile } from '../helpers/files.js';
import {
  createBenefitVia,
  createCustomFieldVia,
  createMeterVia,
  createProductVia,
  locs,
  METER,
  outboxEvents,
} from '../helpers/products.js';
import { createMerchant } from '../helpers/v1.js';

const daemon = useTestDaemon();
const create = createProductVia;
const benefit = createBenefitVia;
const customField = createCustomFieldVia;
const events = (organizationId: string, type: string) => outboxEvents(daemon(), organizationId, type);

describe('POST /v1/products/', () => {
  it('creates one-time and recurring products with each price type', async () => {
    const merchant = await createMerchant(daemon());
    const now = daemon().clock.now().toISOString();
    const oneTime = await create(merchant, { description: 'A book', metadata: { sku: 'B-1', pages: 320, beta: true } });
    expect(oneTime).toEqual({
      id: expect.any(String),
      created_at: now,
      modified_at: null,
      trial_interval: null,
      trial_interval_count: null,
      name: 'E-book',
      description: 'A book',
      visibility: 'public',
      recurring_interval: null,
      recurring_interval_count: null,
      meter_interval: null,
      meter_interval_count: null,
      is_recurring: false,
      is_archived: false,
      organization_id: merchant.organization.id,
      metadata: { sku: 'B-1', pages: 320, beta: true },
      prices: [
        {
          created_at: now,
          modified_at: null,
          id: expect.any(String),
          source: 'catalog',
          amount_type: 'fixed',
          price_currency: 'usd',
          tax_behavior: null,
          is_archived: false,
          product_id: oneTime.id,
          price_amount: 1500,
        },
      ],
      benefits: [],
      medias: [],
      attached_custom_fields: [],
    });
    expect(await events(merchant.organization.id, 'product.created')).toEqual([oneTime]);

    const custom = await create(merchant, {
      name: 'Tip jar',
      prices: [{ amount_type: 'custom', minimum_amount: 100, maximum_amount: 10_000, preset_amount: 500 }],
    });
    expect(custom.prices[0]).toMatchObject({
      amount_type: 'custom',
      price_currency: 'usd',
      minimum_amount: 100,
      maximum_amount: 10_000,
      preset_amount: 500,
    });
    const defaults = await create(merchant, { name: 'Pay what you want', prices: [{ amount_type: 'custom' }] });
    expect(defaults.prices[0]).toMatchObject({ minimum_amount: 50, maximum_amount: null, preset_amount: null });
    const free = await create(merchant, { name: 'Sampler', prices: [{ amount_type: 'free' }] });
    expect(free.prices[0]).toMatchObject({ amount_type: 'free', price_currency: 'usd' });
    expect(free.prices[0]).not.toHaveProperty('price_amount');

    const meter = await createMeterVia(merchant, { name: 'Tokens', unit: 'token' });
    const monthly = await create(merchant, {
      name: 'Pro plan',
      recurring_interval: 'month',
      trial_interval: 'day',
      trial_interval_count: 14,
      prices: [
        { amount_type: 'fixed', price_amount: 2900, price_currency: 'eur', tax_behavior: 'inclusive' },
        {
          amount_type: 'metered_unit',
          meter_id: meter.id,
          unit_amount: '0.050',
          cap_amount: 100_000,
          price_currency: 'eur',
        },
        { amount_type: 'metered_unit', meter_id: meter.id, unit_amount: 2.5, price_currency: 'eur' },
      ],
    });
    expect(monthly).toMatchObject({
      is_recurring: true,
      recurring_interval: 'month',
      recurring_interval_count: 1,
      trial_interval: 'day',
      trial_interval_count: 14,
    });
    expect(monthly.prices.map((price: any) => price.amount_type)).toEqual(['fixed', 'metered_unit', 'metered_unit']);
    expect(monthly.prices[0]).toMatchObject({ price_currency: 'eur', tax_behavior: 'inclusive', price_amount: 2900 });
    expect(monthly.prices[1]).toMatchObject({
      unit_amount: '0.05',
      cap_amount: 100_000,
      meter_id: meter.id,
      meter: { id: meter.id, name: 'Tokens', unit: 'token', custom_label: null, custom_multiplier: null },
    });
    expect(monthly.prices[2]).toMatchObject({ unit_amount: '2.5', cap_amount: null });

    const yearly = await create(merchant, {
      name: 'Yearly',
      recurring_interval: 'year',
      recurring_interval_count: 2,
      prices: [{ amount_type: 'free' }],
    });
    expect(yearly).toMatchObject({ recurring_interval: 'year', recurring_interval_count: 2, trial_interval: null });
    const weekly = await create(merchant, {
      name: 'Weekly',
      recurring_interval: 'week',
      prices: [{ amount_type: 'fixed', price_amount: 0 }],
    });
    expect(weekly.prices[0].price_amount).toBe(0);
  });

  it.each([
    [
      'a negative price',
      { prices: [{ amount_type: 'fixed', price_amount: -1 }] },
      ['body', 'prices', 0, 'price_amount'],
    ],
    [
      'a fractional price',
      { prices: [{ amount_type: 'fixed', price_amount: 10.5 }] },
      ['body', 'prices', 0, 'price_amount'],
    ],
    [
      'a price under the smallest charge',
      { prices: [{ amount_type: 'fixed', price_amount: 49 }] },
      ['body', 'prices', 0, 'price_amount'],
    ],
    [
      'a price over Polar’s ceiling',
      { prices: [{ amount_type: 'fixed', price_amount: 100_000_000 }] },
      ['body', 'prices', 0, 'price_amount'],
    ],
    [
      'custom minimum above maximum',
      { prices: [{ amount_type: 'custom', minimum_amount: 1000, maximum_amount: 500 }] },
      ['body', 'prices', 0, 'maximum_amount'],
    ],
    [
      'custom preset below minimum',
      { prices: [{ amount_type: 'custom', minimum_amount: 1000, preset_amount: 600 }] },
      ['body', 'prices', 0, 'preset_amount'],
    ],
    [
      'custom preset above maximum',
      { prices: [{ amount_type: 'custom', maximum_amount: 1000, preset_amount: 2000 }] },
      ['body', 'prices', 0, 'preset_amount'],
    ],
    [
      'custom negative minimum',
      { prices: [{ amount_type: 'custom', minimum_amount: -5 }] },
      ['body', 'prices', 0, 'minimum_amount'],
    ],
    [
      'an unknown amount_type',
      { prices: [{ amount_type: 'seat_based', price_amount: 100 }] },
      ['body', 'prices', 0, 'amount_type'],
    ],
    [
      'an upper-case currency',
      { prices: [{ amount_type: 'fixed', price_amount: 100, price_currency: 'USD' }] },
      ['body', 'prices', 0, 'price_currency'],
    ],
    [
      'a two-letter currency',
      { prices: [{ amount_type: 'fixed', price_amount: 100, price_currency: 'us' }] },
      ['body', 'prices', 0, 'price_currency'],
    ],
    [
      'a negative unit amount',
      { recurring_interval: 'month', prices: [{ amount_type: 'metered_unit', meter_id: METER, unit_amount: '-1' }] },
      ['body', 'prices', 0, 'unit_amount'],
    ],
    [
      'a zero unit amount',
      { recurring_interval: 'month', prices: [{ amount_type: 'metered_unit', meter_id: METER, unit_amount: '0.000' }] },
      ['body', 'prices', 0, 'unit_amount'],
    ],
    [
      'a meter id that is not a UUID',
      { recurring_interval: 'month', prices: [{ amount_type: 'metered_unit', meter_id: 'meter-1', unit_amount: '1' }] },
      ['body', 'prices', 0, 'meter_id'],
    ],
    [
      'a metered price on a one-time product',
      { prices: [{ amount_type: 'metered_unit', meter_id: METER, unit_amount: '1' }] },
      ['body', 'prices', 0, 'amount_type'],
    ],
    [
      'two fixed prices in one currency',
      {
        prices: [
          { amount_type: 'fixed', price_amount: 100 },
          { amount_type: 'fixed', price_amount: 200 },
        ],
      },
      ['body', 'prices', 1, 'amount_type'],
    ],
    [
      'a free price with a fixed one',
      { prices: [{ amount_type: 'free' }, { amount_type: 'fixed', price_amount: 200 }] },
      ['body', 'prices', 1, 'amount_type'],
    ],
    [
      'a free price with a metered one',
      {
        recurring_interval: 'month',
        prices: [{ amount_type: 'free' }, { amount_type: 'metered_unit', meter_id: METER, unit_amount: '1' }],
      },
      ['body', 'prices', 1, 'amount_type'],
    ],
    ['no prices', { prices: [] }, ['body', 'prices']],
    ['a name over 64 characters', { name: 'x'.repeat(65) }, ['body', 'name']],
    ['a name under 3 characters', { name: 'ab' }, ['body', 'name']],
    ['a nested metadata object', { metadata: { nested: { a: 1 } } }, ['body', 'metadata', 'nested']],
    [
      'more than 50 metadata keys',
      { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) },
      ['body', 'metadata'],
    ],
    [
      'a metadata key over 40 characters',
      { metadata: { ['k'.repeat(41)]: 'v' } },
      ['body', 'metadata', 'k'.repeat(41)],
    ],
    ['an unknown recurring interval', { recurring_interval: 'fortnight' }, ['body', 'recurring_interval']],
    ['an interval count on a one-time product', { recurring_interval_count: 2 }, ['body', 'recurring_interval_count']],
    ['a field Polar does not have', { color: 'red' }, ['body', 'color']],
  ])('refuses %s with a 422 at its loc', async (_case, body, loc) => {
    const merchant = await createMerchant(daemon());
    const response = await merchant.api.post('/v1/products/', {
      name: 'Product',
      prices: [{ amount_type: 'fixed', price_amount: 1500 }],
      ...body,
    });
    expect(response.status, response.text).toBe(422);
    expect(locs(response)).toContainEqual(loc);
    expect((await merchant.api.get('/v1/products/')).json.pagination.total_count).toBe(0);
  });

  it('attaches product media files and custom fields of the same organization, in order', async () => {
    const merchant = await createMerchant(daemon());
    const cover = await uploadFile(merchant.api, undefined, { service: 'product_media', name: 'cover.png' });
    const back = await uploadFile(merchant.api, undefined, { service: 'product_media', name: 'back.png' });
    const company = await customField(merchant, 'company');
    const vat = await customField(merchant, 'vat');
    const product = await create(merchant, {
      medias: [back.id, cover.id],
      attached_custom_fields: [
        { custom_field_id: vat.id, required: true },
        { custom_field_id: company.id, required: false },
      ],
    });
    expect(product.medias.map((media: any) => media.id)).toEqual([back.id, cover.id]);
    expect(product.medias[0]).toMatchObject({
      service: 'product_media',
      name: 'back.png',
      is_uploaded: true,
      public_url: expect.stringContaining(`/v1/files/${back.id}/public`),
    });
    expect(product.attached_custom_fields).toEqual([
      { custom_field_id: vat.id, custom_field: vat, order: 0, required: true },
      { custom_field_id: company.id, custom_field: company, order: 1, required: false },
    ]);
  });

  it('refuses files that are not uploaded product medias of the organization, and foreign custom fields', async () => {
    const a = await createMerchant(daemon());
    const b = await createMerchant(daemon());
    const download = await uploadFile(a.api, undefined, { service: 'downloadable' });
    const foreignMedia = await uploadFile(b.api, undefined, { service: 'product_media' });
    const foreignField = await customField(b);
    const response = await a.api.post('/v1/products/', {
      name: 'Product',
      prices: [{ amount_type: 'free' }],
      medias: [download.id, foreignMedia.id, randomUUID()],
      attached_custom_fields: [{ custom_field_id: foreignField.id, required: true }],
    });
    expect(response.status).toBe(422);
    expect(locs(response)).toEqual([
      ['body', 'medias', 0],
      ['body', 'medias', 1],
      ['body', 'medias', 2],
      ['body', 'attached_custom_fields', 0, 'custom_field_id'],
    ]);
    expect((await a.api.get('/v1/products/')).json.pagination.total_count).toBe(0);
  });

  it('refuses a metered price on a meter the organization does not have, on create and on update', async () => {
    const a = await createMerchant(daemon());
    const b = await createMerchant(daemon());
    const foreign = await createMeterVia(b);
    const own = await createMeterVia(a);
    const response = await a.api.post('/v1/products/', {
      name: 'Usage plan',
      recurring_interval: 'month',
      prices: [
        { amount_type: 'metered_unit', meter_id: foreign.id, unit_amount: '1', price_currency: 'usd' },
        { amount_type: 'metered_unit', meter_id: own.id, unit_amount: '1', price_currency: 'eur' },
        { amount_type: 'metered_unit', meter_id: METER, unit_amount: '1', price_currency: 'gbp' },
      ],
    });
    expect(response.status, response.text).toBe(422);
    expect(response.json.detail).toEqual([
      { loc: ['body', 'prices', 0, 'meter_id'], msg: 'Meter does not exist.', type: 'value_error', input: foreign.id },
      { loc: ['body', 'prices', 2, 'meter_id'], msg: 'Meter does not exist.', type: 'value_error', input: METER },
    ]);
    expect((await a.api.get('/v1/products/')).json.pagination.total_count).toBe(0);

    const product = await create(a, {
      name: 'Usage plan',
      recurring_interval: 'month',
      prices: [{ amount_type: 'fixed', price_amount: 1000 }],
    });
    const update = await a.api.call('PATCH', `/v1/products/${product.id}`, {
      body: {
        name: 'Renamed',
        prices: [{ id: product.prices[0].id }, { amount_type: 'metered_unit', meter_id: foreign.id, unit_amount: '1' }],
      },
    });
    expect(update.status).toBe(422);
    expect(locs(update)).toEqual([['body', 'prices', 1, 'meter_id']]);
    expect((await a.api.get(`/v1/products/${product.id}`)).json).toEqual(product);
  });

  it('embeds the meter in its metered prices, as the meter is now', async () => {
    const merchant = await createMerchant(daemon());
    const meter = await createMeterVia(merchant, { name: 'Storage', unit: 'custom', custom_label: 'GB' });
    const product = await create(merchant, {
      name: 'Storage plan',
      recurring_interval: 'month',
      prices: [{ amount_type: 'metered_unit', meter_id: meter.id, unit_amount: '12.5' }],
    });
    expect(product.prices[0].meter).toEqual({
      id: meter.id,
      name: 'Storage',
      unit: 'custom',
      custom_label: 'GB',
      custom_multiplier: null,
    });
    // Read once so that the daemon's catalog cache holds the product before the meter changes.
    expect((await merchant.api.get(`/v1/products/${product.id}`)).json).toEqual(product);
    const renamed = await merchant.api.call('PATCH', `/v1/meters/${meter.id}`, {
      body: { name: 'Object storage', custom_multiplier: 1000 },
    });
    expect(renamed.status, renamed.text).toBe(200);
    const read = await merchant.api.get(`/v1/products/${product.id}`);
    expect(read.json.prices[0].meter).toEqual({
      id: meter.id,
      name: 'Object storage',
      unit: 'custom',
      custom_label: 'GB',
      custom_multiplier: 1000,
    });
    const listed = await merchant.api.get('/v1/products/');
    expect(listed.json.items[0].prices[0].meter.name).toBe('Object storage');
  });
});

describe('PATCH /v1/products/{id}', () => {
  it('archives prices left out of the list, keeps their ids readable, and shows only live prices', async () => {
    const merchant = await createMerchant(daemon());
    const product = await create(merchant, {
      name: 'Pro',
      recurring_interval: 'month',
      prices: [
        { amount_type: 'fixed', price_amount: 1000 },
        { amount_type: 'metered_unit', meter_id: (await createMeterVia(merchant)).id, unit_amount: '1' },
      ],
    });
    const [oldFixed, metered] = product.prices;
    daemon().clock.advance(60_000);
    const updated = await merchant.api.call('PATCH', `/v1/products/${product.id}`, {
      body: { prices: [{ amount_type: 'fixed', price_amount: 1200 }, { id: metered.id }] },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json.modified_at).toBe(daemon().clock.now().toISOString());
    expect(
      updated.json.prices.map((price: any) => [price.amount_type, price.price_amount ?? price.unit_amount]),
    ).toEqual([
      ['fixed', 1200],
      ['metered_unit', '1'],
    ]);
    expect(updated.json.prices[1].id).toBe(metered.id);
    expect(updated.json.prices.map((price: any) => price.id)).not.toContain(oldFixed.id);

    const archived = await findPrice(daemon().core.db, oldFixed.id, daemon().core.readCache);
    expect(archived?.price).toMatchObject({
      id: oldFixed.id,
      isArchived: true,
      priceAmount: 1000,
      modifiedAt: daemon().clock.now(),
    });
    expect(archived?.product.id).toBe(product.id);
    const live = await findProduct(daemon().core.db, product.id, daemon().core.readCache);
    expect(live?.prices.map((price) => price.id)).toEqual([updated.json.prices[0].id, metered.id]);

    const revive = await merchant.api.call('PATCH', `/v1/products/${product.id}`, {
      body: { prices: [{ id: oldFixed.id }] },
    });
    expect(revive.status).toBe(422);
    expect(locs(revive)).toEqual([['body', 'prices', 0, 'id']]);
    const unknown = await merchant.api.call('PATCH', `/v1/products/${product.id}`, {
      body: { prices: [{ id: randomUUID() }] },
    });
    expect(unknown.status).toBe(422);
    const empty = await merchant.api.call('PATCH', `/v1/products/${product.id}`, { body: { prices: [] } });
    expect(empty.status).toBe(422);
    expect(locs(empty)).toEqual([['body', 'prices']]);
    const invalid = await merchant.api.call('PATCH', `/v1/products/${product.id}`, {
      body: { prices: [{ amount_type: 'custom', minimum_amount: 900, maximum_amount: 100 }] },
    });
    expect(locs(invalid)).toEqual([['body', 'prices', 0, 'maximum_amount']]);
    expect((await merchant.api.get(`/v1/products/${product.id}`)).json.prices).toEqual(updated.json.prices);
  });

  it('changes names, descriptions, visibility, metadata, medias and custom fields, and records product.updated', async () => {
    const merchant = await createMerchant(daemon());
    const product = await create(merchant, { description: 'Old', metadata: { a: 'b' } });
    const media = await uploadFile(merchant.api, undefined, { service: 'product_media' });
    const field = await customField(merchant);
    const response = await merchant.api.call('PATCH', `/v1/products/${product.id}`, {
      body: {
        name: 'E-book, 2nd edition',
        description: null,
        visibility: 'private',
        metadata: { edition: 2 },
        medias: [media.id],
        attached_custom_fields: [{ custom_field_id: field.id, required: true }],
      },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.json).toMatchObject({
      name: 'E-book, 2nd edition',
      description: null,
      visibility: 'private',
      metadata: { edition: 2 },
      prices: product.prices,
    });
    expect(response.json.medias.map((item: any) => item.id)).toEqual([media.id]);
    expect(response.json.attached_custom_fields[0]).toMatchObject({
      custom_field_id: field.id,
      required: true,
      order: 0,
    });
    const cleared = await merchant.api.call('PATCH', `/v1/products/${product.id}`, {
      body: { medias: [], attached_custom_fields: [] },
    });
    expect(cleared.json).toMatchObject({ medias: [], attached_custom_fields: [], name: 'E-book, 2nd edition' });
    expect(await events(merchant.organization.id, 'product.updated')).toEqual([response.json, cleared.json]);
  });

  it('archives and unarchives instead of deleting (Polar has no DELETE)', async () => {
    const merchant = await createMerchant(daemon());
    const product = await create(merchant);
    const archived = await merchant.api.call('PATCH', `/v1/products/${product.id}`, { body: { is_archived: true } });
    expect(archived.json.is_archived).toBe(true);
    expect(archived.json.prices).toEqual(product.prices);
    expect((await merchant.api.get('/v1/products/', { query: { is_archived: 'false' } })).json.items).toEqual([]);
    expect(
      (await merchant.api.get('/v1/products/', { query: { is_archived: 'true' } })).json.items.map(
        (item: any) => item.id,
      ),
    ).toEqual([product.id]);
    const restored = await merchant.api.call('PATCH', `/v1/products/${product.id}`, { body: { is_archived: false } });
    expect(restored.json.is_archived).toBe(false);
    expect((await merchant.api.call('DELETE', `/v1/products/${product.id}`)).status).toBe(404);
    expect((await merchant.api.get(`/v1/products/${product.id}`)).status).toBe(200);
  });

  it('keeps the billing interval as sold: it can be restated, not changed', async () => {
    const merchant = await createMerchant(daemon());
    const monthly = await create(merchant, { recurring_interval: 'month' });
    const oneTime = await create(merchant);
    expect(
      (
        await merchant.api.call('PATCH', `/v1/products/${monthly.id}`, {
          body: { recurring_interval: 'month', recurring_interval_count: 1 },
        })
      ).status,
    ).toBe(200);
    const changed = await merchant.api.call('PATCH', `/v1/products/${monthly.id}`, {
      body: { recurring_interval: 'year' },
    });
    expect(changed.status).toBe(422);
    expect(locs(changed)).toEqual([['body', 'recurring_interval']]);
    expect(
      locs(await merchant.api.call('PATCH', `/v1/products/${monthly.id}`, { body: { recurring_interval_count: 3 } })),
    ).toEqual([['body', 'recurring_interval_count']]);
    expect(
      locs(await merchant.api.call('PATCH', `/v1/products/${oneTime.id}`, { body: { recurring_interval: 'month' } })),
    ).toEqual([['body', 'recurring_interval']]);
    expect(
      locs(await merchant.api.call('PATCH', `/v1/products/${oneTime.id}`, { body: { trial_interval: 'day' } })),
    ).toEqual([['body', 'trial_interval']]);
    const metered = await merchant.api.call('PATCH', `/v1/products/${oneTime.id}`, {
      body: {
        prices: [{ amount_type: 'metered_unit', meter_id: (await createMeterVia(merchant)).id, unit_amount: '1' }],
      },
    });
    expect(locs(metered)).toEqual([['body', 'prices', 0, 'amount_type']]);
    const trial = await merchant.api.call('PATCH', `/v1/products/${monthly.id}`, {
      body: { trial_interval: 'week', trial_interval_count: 2 },
    });
    expect(trial.json).toMatchObject({ trial_interval: 'week', trial_interval_count: 2, recurring_interval: 'month' });
    expect(
      (await merchant.api.call('PATCH', `/v1/products/${monthly.id}`, { body: { trial_interval: null } })).json,
    ).toMatchObject({ trial_interval: null, trial_interval_count: null });
  });
});

describe('POST /v1/products/{id}/benefits', () => {
  it('replaces the set in the order given, refusing deleted and foreign benefits', async () => {
    const merchant = await createMerchant(daemon());
    const other = await createMerchant(daemon());
    const product = await create(merchant);
    const [one, two, three] = [
      await benefit(merchant, 'One benefit'),
      await benefit(merchant, 'Two benefit'),
      await benefit(merchant, 'Three benefit'),
    ];
    const set = await merchant.api.post(`/v1/products/${product.id}/benefits`, { benefits: [three.id, one.id] });
    expect(set.status, set.text).toBe(200);
    expect(set.json.benefits).toEqual([three, one]);
    const replaced = await merchant.api.post(`/v1/products/${product.id}/benefits`, { benefits: [two.id, three.id] });
    expect(replaced.json.benefits.map((item: any) => item.id)).toEqual([two.id, three.id]);

    const foreign = await benefit(other);
    const refused = await merchant.api.post(`/v1/products/${product.id}/benefits`, { benefits: [one.id, foreign.id] });
    expect(refused.status).toBe(422);
    expect(locs(refused)).toEqual([['body', 'benefits', 1]]);
    expect((await merchant.api.call('DELETE', `/v1/benefits/${one.id}`)).status).toBe(204);
    const deleted = await merchant.api.post(`/v1/products/${product.id}/benefits`, { benefits: [one.id] });
    expect(locs(deleted)).toEqual([['body', 'benefits', 0]]);
    expect(locs(await merchant.api.post(`/v1/products/${product.id}/benefits`, { benefits: ['not-a-uuid'] }))).toEqual([
      ['body', 'benefits', 0],
    ]);
    expect((await merchant.api.get(`/v1/products/${product.id}`)).json.benefits.map((item: any) => item.id)).toEqual([
      two.id,
      three.id,
    ]);
    expect((await merchant.api.post(`/v1/products/${product.id}/benefits`, { benefits: [] })).json.benefits).toEqual(
      [],
    );
    expect(
      (await events(merchant.organization.id, 'product.updated')).map((event: any) => event.benefits.length),
    ).toEqual([2, 2, 0]);
  });
});

describe('GET /v1/products/', () => {
  it('filters by name, recurrence, archive state, benefit, id, visibility and metadata', async () => {
    const merchant = await createMerchant(daemon());
    const perk = await benefit(merchant);
    const book = await create(merchant, { name: 'Cookbook', metadata: { kind: 'book', pages: 320, print: true } });
    const course = await create(merchant, {
      name: 'Cooking course',
      recurring_interval: 'month',
      metadata: { kind: 'course' },
    });
    const poster = await create(merchant, { name: 'Poster 50%_off', visibility: 'draft' });
    await merchant.api.post(`/v1/products/${course.id}/benefits`, { benefits: [perk.id] });
    await merchant.api.call('PATCH', `/v1/products/${poster.id}`, { body: { is_archived: true } });
    const ids = async (query: Record<string, string>) =>
      (await merchant.api.get('/v1/products/', { query })).json.items.map((item: any) => item.id).sort();

    expect(await ids({ query: 'COOK' })).toEqual([book.id, course.id].sort());
    expect(await ids({ query: '50%_' })).toEqual([poster.id]);
    expect(await ids({ query: '%' })).toEqual([poster.id]);
    expect(await ids({ is_recurring: 'true' })).toEqual([course.id]);
    expect(await ids({ is_recurring: 'false' })).toEqual([book.id, poster.id].sort());
    expect(await ids({ is_archived: 'true' })).toEqual([poster.id]);
    expect(await ids({ benefit_id: perk.id })).toEqual([course.id]);
    expect(await ids({ id: book.id })).toEqual([book.id]);
    expect(await ids({ visibility: 'draft' })).toEqual([poster.id]);
    expect(await ids({ 'metadata[kind]': 'book' })).toEqual([book.id]);
    expect(await ids({ 'metadata[pages]': '320', 'metadata[print]': 'true' })).toEqual([book.id]);
    expect(await ids({ 'metadata[kind]': 'nothing' })).toEqual([]);
    const both = await merchant.api.get(
      `/v1/products/?metadata[kind]=book&metadata[kind]=course&id=${book.id}&id=${course.id}`,
    );
    expect(both.json.items.map((item: any) => item.id).sort()).toEqual([book.id, course.id].sort());
    const bad = await merchant.api.get('/v1/products/', { query: { is_archived: 'maybe' } });
    expect(bad.status).toBe(422);
    expect(locs(bad)).toEqual([['query', 'is_archived']]);
    expect(locs(await merchant.api.get('/v1/products/', { query: { sorting: 'color' } }))).toEqual([
      ['query', 'sorting'],
    ]);
  });

  it('sorts by name and price and pages through to the last page', async () => {
    const merchant = await createMerchant(daemon());
    const made = [];
    for (const [name, price] of [
      ['Delta', 4000],
      ['Alpha', 900],
      ['Charlie', 2500],
      ['Bravo', 0],
      ['Echo', 1500],
    ] as const) {
      made.push(await create(merchant, { name, prices: [{ amount_type: 'fixed', price_amount: price }] }));
      daemon().clock.advance(1000);
    }
    const names = async (query: Record<string, string>) =>
      (await merchant.api.get('/v1/products/', { query })).json.items.map((item: any) => item.name);
    expect(await names({})).toEqual(['Echo', 'Bravo', 'Charlie', 'Alpha', 'Delta']);
    expect(await names({ sorting: 'name' })).toEqual(['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo']);
    expect(await names({ sorting: '-price_amount' })).toEqual(['Delta', 'Charlie', 'Echo', 'Alpha', 'Bravo']);
    expect(await names({ sorting: 'price_amount' })).toEqual(['Bravo', 'Alpha', 'Echo', 'Charlie', 'Delta']);
    expect(await names({ sorting: 'price_amount_type' })).toHaveLength(5);
    const pages = [];
    for (let page = 1; page <= 3; page++) {
      const response = await merchant.api.get('/v1/products/', {
        query: { sorting: 'created_at', limit: '2', page: String(page) },
      });
      expect(response.json.pagination).toEqual({ total_count: 5, max_page: 3 });
      pages.push(response.json.items.map((item: any) => item.name));
    }
    expect(pages).toEqual([['Delta', 'Alpha'], ['Charlie', 'Bravo'], ['Echo']]);
  });
});
