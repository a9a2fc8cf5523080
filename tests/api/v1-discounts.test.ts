import { describe, expect, it } from 'vitest';
import { deferRedemption, isRedemptionRefused } from '../../src/core/discounts/redemption.js';
import { finishWith, transaction } from '../../src/core/database/index.js';
import { createDiscount, createProduct } from '../helpers/discount-fixtures.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { addMember, signedInUser } from '../helpers/organizations.js';
import { bearerClient, createMerchant } from '../helpers/v1.js';

const daemon = useTestDaemon();

/** Whether one redemption went through, sent as the checkout's race sends it. */
const redeemNow = (id: string, at = daemon().clock.now()) =>
  transaction(daemon().core.db, (trx) => finishWith(trx, deferRedemption(trx, id, at))).then(
    () => true,
    (error: unknown) => {
      if (isRedemptionRefused(error)) return false;
      throw error;
    },
  );

describe('POST /v1/discounts/', () => {
  it('creates the four variants in Polar’s shapes', async () => {
    const { api, organization } = await createMerchant(daemon());
    const fixedOnce = await api.post('/v1/discounts/', {
      name: '5 off',
      type: 'fixed',
      amount: 500,
      currency: 'usd',
      duration: 'once',
      code: 'FIVE',
    });
    expect(fixedOnce.status).toBe(201);
    expect(fixedOnce.json).toEqual({
      id: expect.any(String),
      created_at: daemon().clock.now().toISOString(),
      modified_at: null,
      metadata: {},
      name: '5 off',
      code: 'FIVE',
      type: 'fixed',
      amount: 500,
      currency: 'usd',
      amounts: { usd: 500 },
      duration: 'once',
      starts_at: null,
      ends_at: null,
      max_redemptions: null,
      max_redemptions_per_customer: null,
      redemptions_count: 0,
      organization_id: organization.id,
      products: [],
    });
    const fixedRepeat = await api.post('/v1/discounts/', {
      name: 'Multi',
      type: 'fixed',
      amounts: { eur: 400, usd: 450 },
      duration: 'repeating',
      duration_in_months: 3,
    });
    expect(fixedRepeat.json).toMatchObject({
      type: 'fixed',
      amount: 450,
      currency: 'usd',
      amounts: { eur: 400, usd: 450 },
      duration: 'repeating',
      duration_in_months: 3,
    });
    const percentForever = await api.post('/v1/discounts/', {
      name: 'Quarter',
      type: 'percentage',
      basis_points: 2500,
      duration: 'forever',
      metadata: { campaign: 'fall', tier: 2, on: true },
    });
    expect(percentForever.json).toMatchObject({
      type: 'percentage',
      basis_points: 2500,
      duration: 'forever',
      metadata: { campaign: 'fall', tier: 2, on: true },
    });
    expect(percentForever.json).not.toHaveProperty('duration_in_months');
    expect(percentForever.json).not.toHaveProperty('amount');
    const percentRepeat = await api.post('/v1/discounts/', {
      name: 'Half a year',
      type: 'percentage',
      basis_points: 10_000,
      duration: 'repeating',
      duration_in_months: 6,
      starts_at: '2026-12-01T00:00:00+01:00',
      ends_at: '2027-01-01T00:00:00Z',
      max_redemptions: 100,
    });
    expect(percentRepeat.json).toMatchObject({
      basis_points: 10_000,
      duration_in_months: 6,
      starts_at: '2026-11-30T23:00:00.000Z',
      ends_at: '2027-01-01T00:00:00.000Z',
      max_redemptions: 100,
    });
    const got = await api.get(`/v1/discounts/${percentRepeat.json.id}`);
    expect(got.json).toEqual(percentRepeat.json);
  });

  it('restricts a discount to the organization’s own products, and only those', async () => {
    const a = await createMerchant(daemon());
    const b = await createMerchant(daemon());
    const own = await createProduct(a.api, { name: 'Own product' });
    const foreign = await createProduct(b.api, { name: 'Foreign product' });
    const created = await a.api.post('/v1/discounts/', {
      name: 'Own only',
      type: 'percentage',
      basis_points: 1000,
      duration: 'once',
      products: [own.id],
    });
    expect(created.status).toBe(201);
    expect(created.json.products).toEqual([
      expect.objectContaining({
        id: own.id,
        name: 'Own product',
        is_archived: false,
        organization_id: a.organization.id,
      }),
    ]);
    expect(created.json.products[0]).not.toHaveProperty('prices');

    const refused = await a.api.post('/v1/discounts/', {
      name: 'Theirs',
      type: 'percentage',
      basis_points: 1000,
      duration: 'once',
      products: [own.id, foreign.id],
    });
    expect(refused.status).toBe(422);
    expect(refused.json.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'products', 1], msg: 'Product not found.' }),
    ]);
    const unknown = await a.api.call('PATCH', `/v1/discounts/${created.json.id}`, { body: { products: [foreign.id] } });
    expect(unknown.status).toBe(422);
    expect(unknown.json.detail[0].loc).toEqual(['body', 'products', 0]);
    expect(
      (await a.api.get(`/v1/discounts/${created.json.id}`)).json.products.map((p: { id: string }) => p.id),
    ).toEqual([own.id]);
  });

  it.each([
    [
      'basis points above 100%',
      { type: 'percentage', basis_points: 10_001, duration: 'once' },
      ['body', 'basis_points'],
    ],
    ['zero basis points', { type: 'percentage', basis_points: 0, duration: 'once' }, ['body', 'basis_points']],
    [
      'a fraction of a basis point',
      { type: 'percentage', basis_points: 12.5, duration: 'once' },
      ['body', 'basis_points'],
    ],
    ['a negative amount', { type: 'fixed', amount: -1, currency: 'usd', duration: 'once' }, ['body', 'amount']],
    ['a fixed discount without an amount', { type: 'fixed', duration: 'once' }, ['body', 'amount']],
    ['an unknown currency', { type: 'fixed', amount: 100, currency: 'USD', duration: 'once' }, ['body', 'currency']],
    [
      'repeating without months',
      { type: 'percentage', basis_points: 100, duration: 'repeating' },
      ['body', 'duration_in_months'],
    ],
    [
      '1000 months',
      { type: 'percentage', basis_points: 100, duration: 'repeating', duration_in_months: 1000 },
      ['body', 'duration_in_months'],
    ],
    ['an unknown duration', { type: 'percentage', basis_points: 100, duration: 'weekly' }, ['body', 'duration']],
    ['an unknown type', { type: 'bogo', duration: 'once' }, ['body', 'type']],
    ['no type', { basis_points: 100, duration: 'once' }, ['body', 'type']],
    [
      'a code with punctuation',
      { type: 'percentage', basis_points: 100, duration: 'once', code: 'SAVE-10' },
      ['body', 'code'],
    ],
    ['a two-letter code', { type: 'percentage', basis_points: 100, duration: 'once', code: 'AB' }, ['body', 'code']],
    [
      'a 257-character code',
      { type: 'percentage', basis_points: 100, duration: 'once', code: 'A'.repeat(257) },
      ['body', 'code'],
    ],
    ['an empty name', { type: 'percentage', basis_points: 100, duration: 'once', name: '' }, ['body', 'name']],
    [
      'a 257-character name',
      { type: 'percentage', basis_points: 100, duration: 'once', name: 'n'.repeat(257) },
      ['body', 'name'],
    ],
    [
      'ends before it starts',
      {
        type: 'percentage',
        basis_points: 100,
        duration: 'once',
        starts_at: '2027-01-02T00:00:00Z',
        ends_at: '2027-01-01T00:00:00Z',
      },
      ['body', 'ends_at'],
    ],
    [
      'a date without an offset',
      { type: 'percentage', basis_points: 100, duration: 'once', starts_at: 'next tuesday' },
      ['body', 'starts_at'],
    ],
    [
      'zero max redemptions',
      { type: 'percentage', basis_points: 100, duration: 'once', max_redemptions: 0 },
      ['body', 'max_redemptions'],
    ],
    [
      'nested metadata',
      { type: 'percentage', basis_points: 100, duration: 'once', metadata: { deep: { er: 1 } } },
      ['body', 'metadata', 'deep'],
    ],
    [
      'an unknown field',
      { type: 'percentage', basis_points: 100, duration: 'once', max_redemptions_per_customer: 1 },
      ['body', 'max_redemptions_per_customer'],
    ],
  ])('refuses %s with a 422 at the field', async (_label, fields, loc) => {
    const { api } = await createMerchant(daemon());
    const response = await api.post('/v1/discounts/', { name: 'Bad', ...fields });
    expect(response.status).toBe(422);
    expect(response.json.detail.map((issue: { loc: unknown }) => issue.loc)).toContainEqual(loc);
    expect((await api.get('/v1/discounts/')).json.pagination.total_count).toBe(0);
  });

  it('keeps codes unique per organization whatever their case, even under concurrent requests', async () => {
    const a = await createMerchant(daemon());
    const b = await createMerchant(daemon());
    await createDiscount(a.api, { code: 'Summer26' });
    const duplicate = await a.api.post('/v1/discounts/', {
      name: 'Again',
      type: 'percentage',
      basis_points: 100,
      duration: 'once',
      code: 'SUMMER26',
    });
    expect(duplicate.status).toBe(422);
    expect(duplicate.json.detail).toEqual([
      { loc: ['body', 'code'], msg: 'Discount with this code already exists.', type: 'value_error' },
    ]);
    // Another organization has its own codes.
    expect(
      (
        await b.api.post('/v1/discounts/', {
          name: 'Theirs',
          type: 'percentage',
          basis_points: 100,
          duration: 'once',
          code: 'summer26',
        })
      ).status,
    ).toBe(201);

    const codes = ['RACE', 'race', 'Race', 'rAce', 'raCe', 'racE'];
    const responses = await Promise.all(
      codes.map((code) =>
        a.api.post('/v1/discounts/', { name: code, type: 'percentage', basis_points: 100, duration: 'once', code }),
      ),
    );
    expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
    for (const response of responses.filter((r) => r.status !== 201))
      expect(response.json.detail[0].loc).toEqual(['body', 'code']);
  });
});

describe('GET /v1/discounts/', () => {
  it('searches names and codes, pages, sorts and filters by organization', async () => {
    const merchant = await createMerchant(daemon());
    const other = await createMerchant(daemon());
    for (const [name, code] of [
      ['Spring sale', 'SPRING'],
      ['Summer sale', 'HOT100'],
      ['Winter', null],
      ['100% off_', 'FREEBIE'],
    ] as const) {
      await createDiscount(merchant.api, { name, code });
      daemon().clock.advance(1000);
    }
    await createDiscount(other.api, { name: 'Spring elsewhere' });
    const all = await merchant.api.get('/v1/discounts/');
    expect(all.json.pagination).toEqual({ total_count: 4, max_page: 1 });
    expect(all.json.items.map((d: { name: string }) => d.name)).toEqual([
      '100% off_',
      'Winter',
      'Summer sale',
      'Spring sale',
    ]);
    const search = async (query: string) =>
      (await merchant.api.get('/v1/discounts/', { query: { query } })).json.items.map((d: { name: string }) => d.name);
    expect(await search('SALE')).toEqual(['Summer sale', 'Spring sale']);
    expect(await search('hot1')).toEqual(['Summer sale']);
    expect(await search('%')).toEqual(['100% off_']);
    expect(await search('_')).toEqual(['100% off_']);
    const page = await merchant.api.get('/v1/discounts/', { query: { limit: '3', page: '2', sorting: 'name' } });
    expect(page.json.items.map((d: { name: string }) => d.name)).toEqual(['Winter']);
    expect(page.json.pagination.max_page).toBe(2);
    const foreign = await merchant.api.get('/v1/discounts/', { query: { organization_id: other.organization.id } });
    expect(foreign.json.items).toEqual([]);
    const bad = await merchant.api.get('/v1/discounts/', { query: { sorting: 'amount' } });
    expect(bad.status).toBe(422);
  });
});

describe('PATCH /v1/discounts/{id}', () => {
  it('changes what Polar lets change and clears optional fields with null', async () => {
    const { api } = await createMerchant(daemon());
    const discount = await createDiscount(api, {
      code: 'OLD',
      max_redemptions: 5,
      ends_at: '2027-01-01T00:00:00Z',
      metadata: { a: 'b' },
    });
    daemon().clock.advance(60_000);
    const updated = await api.call('PATCH', `/v1/discounts/${discount.id}`, {
      body: {
        name: 'Renamed',
        code: 'NEW',
        basis_points: 3000,
        max_redemptions: null,
        ends_at: null,
        metadata: { c: 1 },
      },
    });
    expect(updated.status).toBe(200);
    expect(updated.json).toMatchObject({
      name: 'Renamed',
      code: 'NEW',
      basis_points: 3000,
      max_redemptions: null,
      ends_at: null,
      metadata: { c: 1 },
      modified_at: daemon().clock.now().toISOString(),
    });
    expect((await api.get(`/v1/discounts/${discount.id}`)).json).toEqual(updated.json);
    const cleared = await api.call('PATCH', `/v1/discounts/${discount.id}`, { body: { code: null, name: null } });
    expect(cleared.json).toMatchObject({ code: null, name: 'Renamed' });
  });

  it('refuses changing type or duration, fields of the other type, and dates out of order', async () => {
    const { api } = await createMerchant(daemon());
    const percent = await createDiscount(api, { starts_at: '2027-01-01T00:00:00Z' });
    const fixed = await createDiscount(api, {
      type: 'fixed',
      amount: 100,
      currency: 'usd',
      basis_points: undefined,
      duration: 'repeating',
      duration_in_months: 2,
    });
    const cases: Array<[string, Record<string, unknown>, Array<string | number>]> = [
      [percent.id, { type: 'fixed' }, ['body', 'type']],
      [percent.id, { duration: 'forever' }, ['body', 'duration']],
      [percent.id, { duration_in_months: 3 }, ['body', 'duration_in_months']],
      [percent.id, { amount: 100 }, ['body', 'amount']],
      [fixed.id, { basis_points: 100 }, ['body', 'basis_points']],
      [fixed.id, { currency: 'eur' }, ['body', 'currency']],
      [percent.id, { ends_at: '2026-12-31T00:00:00Z' }, ['body', 'ends_at']],
      [percent.id, { basis_points: 0 }, ['body', 'basis_points']],
      [percent.id, { metadata: { x: [1] } }, ['body', 'metadata', 'x']],
    ];
    for (const [id, body, loc] of cases) {
      const response = await api.call('PATCH', `/v1/discounts/${id}`, { body });
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.json.detail[0].loc).toEqual(loc);
    }
    const months = await api.call('PATCH', `/v1/discounts/${fixed.id}`, {
      body: { duration: 'repeating', duration_in_months: 12, amount: 250 },
    });
    expect(months.json).toMatchObject({ duration_in_months: 12, amount: 250, currency: 'usd', amounts: { usd: 250 } });
  });

  it('freezes the amount once redeemed, and refuses a code another discount has', async () => {
    const { api } = await createMerchant(daemon());
    const fixed = await createDiscount(api, { type: 'fixed', amount: 100, currency: 'usd', basis_points: undefined });
    const percent = await createDiscount(api, { code: 'TAKEN' });
    expect(await redeemNow(fixed.id)).toBe(true);
    expect(await redeemNow(percent.id)).toBe(true);
    const amount = await api.call('PATCH', `/v1/discounts/${fixed.id}`, { body: { amount: 200 } });
    expect(amount.status).toBe(422);
    expect(amount.json.detail[0]).toMatchObject({
      loc: ['body', 'amount'],
      msg: expect.stringContaining('already been redeemed'),
    });
    const points = await api.call('PATCH', `/v1/discounts/${percent.id}`, { body: { basis_points: 5000 } });
    expect(points.json.detail[0].loc).toEqual(['body', 'basis_points']);
    // The same value is not a change, and other fields still change.
    const same = await api.call('PATCH', `/v1/discounts/${fixed.id}`, { body: { amount: 100, name: 'Still 1 off' } });
    expect(same.json).toMatchObject({ amount: 100, name: 'Still 1 off', redemptions_count: 1 });
    const taken = await api.call('PATCH', `/v1/discounts/${fixed.id}`, { body: { code: 'taken' } });
    expect(taken.json.detail[0]).toMatchObject({
      loc: ['body', 'code'],
      msg: 'Discount with this code already exists.',
    });
    expect((await api.call('PATCH', `/v1/discounts/${percent.id}`, { body: { code: 'Taken' } })).json.code).toBe(
      'Taken',
    );
  });
});

describe('DELETE /v1/discounts/{id}', () => {
  it('soft-deletes: gone from reads, not redeemable, and its code free again', async () => {
    const { api } = await createMerchant(daemon());
    const discount = await createDiscount(api, { code: 'BYE' });
    expect((await api.call('DELETE', `/v1/discounts/${discount.id}`)).status).toBe(204);
    expect((await api.get(`/v1/discounts/${discount.id}`)).json).toEqual({
      error: 'ResourceNotFound',
      detail: 'Not found',
    });
    expect((await api.call('DELETE', `/v1/discounts/${discount.id}`)).status).toBe(404);
    expect((await api.call('PATCH', `/v1/discounts/${discount.id}`, { body: { name: 'x' } })).status).toBe(404);
    expect((await api.get('/v1/discounts/')).json.items).toEqual([]);
    expect(await redeemNow(discount.id)).toBe(false);
    const row = await daemon().core.db('discounts').where({ id: discount.id }).first();
    expect(row.deleted_at).not.toBeNull();
    expect((await createDiscount(api, { code: 'bye' })).code).toBe('bye');
  });
});

describe('who may touch a discount', () => {
  it('hides another organization’s discounts behind 404 and changes nothing', async () => {
    const a = await createMerchant(daemon());
    const b = await createMerchant(daemon());
    const theirs = await createDiscount(b.api, { name: 'B only' });
    expect((await a.api.get(`/v1/discounts/${theirs.id}`)).status).toBe(404);
    expect((await a.api.call('PATCH', `/v1/discounts/${theirs.id}`, { body: { name: 'hijacked' } })).status).toBe(404);
    expect((await a.api.call('DELETE', `/v1/discounts/${theirs.id}`)).status).toBe(404);
    expect(
      (
        await a.api.post('/v1/discounts/', {
          name: 'x',
          type: 'percentage',
          basis_points: 1,
          duration: 'once',
          organization_id: b.organization.id,
        })
      ).status,
    ).toBe(422);
    expect((await b.api.get(`/v1/discounts/${theirs.id}`)).json).toEqual(theirs);
  });

  it('lets members read and only owners and admins write; tokens need the scope', async () => {
    const merchant = await createMerchant(daemon());
    const discount = await createDiscount(merchant.api);
    const member = await signedInUser(daemon(), 'Reader');
    await addMember(daemon(), merchant.organization.id, member.user.id, 'member');
    const asMember = bearerClient(daemon(), member.token);
    expect((await asMember.get(`/v1/discounts/${discount.id}`)).status).toBe(200);
    expect((await asMember.get('/v1/discounts/')).json.pagination.total_count).toBe(1);
    for (const response of [
      await asMember.post('/v1/discounts/', { name: 'x', type: 'percentage', basis_points: 1, duration: 'once' }),
      await asMember.call('PATCH', `/v1/discounts/${discount.id}`, { body: { name: 'x' } }),
      await asMember.call('DELETE', `/v1/discounts/${discount.id}`),
    ]) {
      expect(response.status).toBe(403);
      expect(response.json.error).toBe('NotPermitted');
    }
    const readOnly = await createMerchant(daemon(), { scopes: ['discounts:read'] });
    expect((await readOnly.api.get('/v1/discounts/')).status).toBe(200);
    expect(
      (await readOnly.api.post('/v1/discounts/', { name: 'x', type: 'percentage', basis_points: 1, duration: 'once' }))
        .status,
    ).toBe(403);
    expect(
      (
        await merchant.session.post('/v1/discounts/', {
          name: 'By owner',
          type: 'percentage',
          basis_points: 1,
          duration: 'once',
        })
      ).status,
    ).toBe(201);
  });
});

describe('redemption()', () => {
  it('lets exactly one of ten concurrent redemptions through a limit of one', async () => {
    const { api } = await createMerchant(daemon());
    const discount = await createDiscount(api, { max_redemptions: 1 });
    const results = await Promise.all(Array.from({ length: 10 }, () => redeemNow(discount.id)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await api.get(`/v1/discounts/${discount.id}`)).json.redemptions_count).toBe(1);
    expect(await redeemNow(discount.id)).toBe(false);
  });

  it('counts up to the limit, and only within the dates', async () => {
    const { api } = await createMerchant(daemon());
    const limited = await createDiscount(api, { max_redemptions: 3 });
    const results = await Promise.all(Array.from({ length: 10 }, () => redeemNow(limited.id)));
    expect(results.filter(Boolean)).toHaveLength(3);
    const dated = await createDiscount(api, { starts_at: '2026-12-01T00:00:00Z', ends_at: '2026-12-31T00:00:00Z' });
    expect(await redeemNow(dated.id, new Date('2026-11-30T23:59:59Z'))).toBe(false);
    expect(await redeemNow(dated.id, new Date('2026-12-01T00:00:00Z'))).toBe(true);
    expect(await redeemNow(dated.id, new Date('2026-12-31T00:00:00Z'))).toBe(true);
    expect(await redeemNow(dated.id, new Date('2026-12-31T00:00:01Z'))).toBe(false);
    const unlimited = await createDiscount(api);
    expect((await Promise.all(Array.from({ length: 5 }, () => redeemNow(unlimited.id)))).every(Boolean)).toBe(true);
    expect((await api.get(`/v1/discounts/${unlimited.id}`)).json.redemptions_count).toBe(5);
  });

  it('gives the redemption back when the transaction that used it rolls back', async () => {
    const { api } = await createMerchant(daemon());
    const discount = await createDiscount(api, { max_redemptions: 1 });
    await expect(
      transaction(daemon().core.db, async (trx) => {
        expect(Number(await deferRedemption(trx, discount.id, daemon().clock.now()))).toBe(1);
        throw new Error('payment failed');
      }),
    ).rejects.toThrow('payment failed');
    expect((await api.get(`/v1/discounts/${discount.id}`)).json.redemptions_count).toBe(0);
    expect(await redeemNow(discount.id)).toBe(true);
  });
});
