import { CheckoutLink$inboundSchema } from '@polar-sh/sdk/models/components/checkoutlink.js';
import { Discount$inboundSchema } from '@polar-sh/sdk/models/components/discount.js';
import { ListResourceCheckoutLink$inboundSchema } from '@polar-sh/sdk/models/components/listresourcecheckoutlink.js';
import { ListResourceDiscount$inboundSchema } from '@polar-sh/sdk/models/components/listresourcediscount.js';
import { HTTPValidationError } from '@polar-sh/sdk/models/errors/httpvalidationerror.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { describe, expect, it } from 'vitest';
import { createDiscount, createProduct } from '../helpers/discount-fixtures.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { createMerchant } from '../helpers/v1.js';

const daemon = useTestDaemon();

describe('@polar-sh/sdk 0.47 against /v1/discounts', () => {
  it('creates every variant, gets, lists to the last page, updates and deletes', async () => {
    const { sdk, api, organization } = await createMerchant(daemon());
    const product = await createProduct(api, { name: 'Course' });

    const fixedOnce = await sdk.discounts.create({
      type: 'fixed',
      name: 'Ten off',
      amount: 1000,
      currency: 'usd',
      duration: 'once',
      code: 'TENOFF',
    });
    expect(fixedOnce).toMatchObject({
      type: 'fixed',
      amount: 1000,
      currency: 'usd',
      amounts: { usd: 1000 },
      duration: 'once',
      code: 'TENOFF',
      redemptionsCount: 0,
      organizationId: organization.id,
    });
    expect(fixedOnce.createdAt).toBeInstanceOf(Date);
    const fixedRepeat = await sdk.discounts.create({
      type: 'fixed',
      name: 'Multi',
      amounts: { usd: 500, eur: 450 },
      duration: 'repeating',
      durationInMonths: 3,
    });
    expect(fixedRepeat).toMatchObject({ amount: 500, currency: 'usd', durationInMonths: 3 });
    const percentForever = await sdk.discounts.create({
      type: 'percentage',
      name: 'Friends',
      basisPoints: 1500,
      duration: 'forever',
      startsAt: new Date('2026-12-01T00:00:00Z'),
      endsAt: new Date('2027-01-01T00:00:00Z'),
      maxRedemptions: 10,
      products: [product.id],
      metadata: { channel: 'friends' },
    });
    expect(percentForever).toMatchObject({ basisPoints: 1500, maxRedemptions: 10, metadata: { channel: 'friends' } });
    expect(percentForever.startsAt).toEqual(new Date('2026-12-01T00:00:00Z'));
    expect(percentForever.products).toEqual([
      expect.objectContaining({ id: product.id, name: 'Course', isArchived: false }),
    ]);
    const percentRepeat = await sdk.discounts.create({
      type: 'percentage',
      name: 'Half year',
      basisPoints: 5000,
      duration: 'repeating',
      durationInMonths: 6,
    });
    expect(percentRepeat).toMatchObject({ basisPoints: 5000, durationInMonths: 6 });

    expect(await sdk.discounts.get({ id: percentForever.id })).toEqual(percentForever);

    const seen: string[] = [];
    let pages = 0;
    for await (const page of await sdk.discounts.list({ limit: 2 })) {
      pages += 1;
      expect(page.result.pagination).toEqual({ totalCount: 4, maxPage: 2 });
      seen.push(...page.result.items.map((item) => item.id));
    }
    expect(pages).toBe(2);
    expect(seen.sort()).toEqual(
      [fixedOnce, fixedRepeat, percentForever, percentRepeat].map((discount) => discount.id).sort(),
    );
    const found = await sdk.discounts.list({ query: 'tenoff', sorting: ['name'] });
    expect(found.result.items.map((item) => item.id)).toEqual([fixedOnce.id]);

    const updated = await sdk.discounts.update({
      id: fixedOnce.id,
      discountUpdate: { name: 'Twelve off', amount: 1200, currency: 'usd', code: null, maxRedemptions: 3 },
    });
    expect(updated).toMatchObject({ name: 'Twelve off', amount: 1200, code: null, maxRedemptions: 3 });
    expect(updated.modifiedAt).toBeInstanceOf(Date);

    await sdk.discounts.delete({ id: fixedRepeat.id });
    await expect(sdk.discounts.get({ id: fixedRepeat.id })).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(sdk.discounts.delete({ id: fixedRepeat.id })).rejects.toBeInstanceOf(ResourceNotFound);
    const invalid = await sdk.discounts
      .create({ type: 'percentage', name: 'Too much', basisPoints: 20_000, duration: 'once' })
      .catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(HTTPValidationError);
    expect((invalid as HTTPValidationError).data$.detail?.[0]?.loc).toEqual(['body', 'basis_points']);
    const duplicate = await sdk.discounts
      .create({ type: 'percentage', name: 'Dup', basisPoints: 100, duration: 'once', code: 'tenOFF' })
      .catch((error: unknown) => error);
    // The code was cleared above, so it is free; a second use of it is not.
    expect(duplicate).toMatchObject({ code: 'tenOFF' });
    await expect(
      sdk.discounts.create({ type: 'percentage', name: 'Dup', basisPoints: 100, duration: 'once', code: 'TENoff' }),
    ).rejects.toBeInstanceOf(HTTPValidationError);
  });

  it('answers raw bodies the SDK’s own schemas accept', async () => {
    const { api } = await createMerchant(daemon());
    const product = await createProduct(api);
    const bodies = [
      await createDiscount(api, {
        type: 'fixed',
        amount: 100,
        currency: 'usd',
        basis_points: undefined,
        products: [product.id],
      }),
      await createDiscount(api, {
        type: 'fixed',
        amounts: { eur: 90 },
        basis_points: undefined,
        duration: 'repeating',
        duration_in_months: 2,
      }),
      await createDiscount(api, {
        duration: 'forever',
        code: 'RAW',
        starts_at: '2026-12-01T00:00:00Z',
        max_redemptions: 4,
        metadata: { n: 1.5 },
      }),
      await createDiscount(api, { duration: 'repeating', duration_in_months: 12 }),
    ];
    for (const body of bodies) {
      expect(() => Discount$inboundSchema.parse(body)).not.toThrow();
      const fetched = (await api.get(`/v1/discounts/${body.id}`)).json;
      expect(() => Discount$inboundSchema.parse(fetched)).not.toThrow();
    }
    const updated = await api.call('PATCH', `/v1/discounts/${bodies[2].id}`, { body: { name: 'Patched' } });
    expect(() => Discount$inboundSchema.parse(updated.json)).not.toThrow();
    const list = (await api.get('/v1/discounts/')).json;
    expect(() => ListResourceDiscount$inboundSchema.parse(list)).not.toThrow();
  });
});

describe('@polar-sh/sdk 0.47 against /v1/checkout-links', () => {
  it('creates in each shape, gets, lists to the last page, updates and deletes', async () => {
    const { sdk, api, organization } = await createMerchant(daemon());
    const first = await createProduct(api, { name: 'First' });
    const second = await createProduct(api, { name: 'Second' });
    const discount = await sdk.discounts.create({
      type: 'percentage',
      name: 'Link',
      basisPoints: 1000,
      duration: 'once',
    });

    const many = await sdk.checkoutLinks.create({
      paymentProcessor: 'stripe',
      products: [first.id, second.id],
      discountId: discount.id,
      successUrl: 'https://shop.example/done?checkout_id={CHECKOUT_ID}',
      label: 'Launch',
      metadata: { wave: 1 },
    });
    expect(many).toMatchObject({
      paymentProcessor: 'stripe',
      organizationId: organization.id,
      discountId: discount.id,
      allowDiscountCodes: true,
      requireBillingAddress: false,
      label: 'Launch',
      successUrl: 'https://shop.example/done?checkout_id={CHECKOUT_ID}',
    });
    expect(many.products.map((product) => product.name)).toEqual(['First', 'Second']);
    expect(many.discount).toMatchObject({ id: discount.id, basisPoints: 1000 });
    expect(many.url).toBe(`${daemon().url}/v1/checkout-links/${many.clientSecret}/redirect`);
    daemon().clock.advance(1000);
    const single = await sdk.checkoutLinks.create({
      paymentProcessor: 'stripe',
      productId: first.id,
      requireBillingAddress: true,
    });
    expect(single.products.map((product) => product.id)).toEqual([first.id]);
    daemon().clock.advance(1000);
    const byPrice = await sdk.checkoutLinks.create({
      paymentProcessor: 'stripe',
      productPriceId: second.prices[0]!.id,
      trialInterval: 'month',
      trialIntervalCount: 1,
    });
    expect(byPrice).toMatchObject({ trialInterval: 'month', trialIntervalCount: 1 });

    expect(await sdk.checkoutLinks.get({ id: many.id })).toEqual(many);
    const seen: string[] = [];
    for await (const page of await sdk.checkoutLinks.list({ limit: 2 })) {
      expect(page.result.pagination).toEqual({ totalCount: 3, maxPage: 2 });
      seen.push(...page.result.items.map((item) => item.id));
    }
    expect(seen).toEqual([many.id, single.id, byPrice.id]);
    const forSecond = await sdk.checkoutLinks.list({ productId: second.id });
    expect(forSecond.result.items.map((item) => item.id)).toEqual([many.id, byPrice.id]);

    const updated = await sdk.checkoutLinks.update({
      id: many.id,
      checkoutLinkUpdate: { products: [second.id], discountId: null, label: null, allowDiscountCodes: false },
    });
    expect(updated).toMatchObject({ discountId: null, discount: null, label: null, allowDiscountCodes: false });
    expect(updated.products.map((product) => product.id)).toEqual([second.id]);

    await sdk.checkoutLinks.delete({ id: single.id });
    await expect(sdk.checkoutLinks.get({ id: single.id })).rejects.toBeInstanceOf(ResourceNotFound);
    const invalid = await sdk.checkoutLinks
      .create({ paymentProcessor: 'stripe', products: [first.id], successUrl: 'ftp://nope' })
      .catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(HTTPValidationError);
    expect((invalid as HTTPValidationError).data$.detail?.[0]?.loc).toEqual(['body', 'success_url']);
  });

  it('answers raw bodies the SDK’s own schemas accept', async () => {
    const { api } = await createMerchant(daemon());
    const product = await createProduct(api);
    const fixed = await createDiscount(api, {
      type: 'fixed',
      amount: 300,
      currency: 'usd',
      basis_points: undefined,
      duration: 'repeating',
      duration_in_months: 2,
    });
    const withDiscount = await api.post('/v1/checkout-links/', {
      payment_processor: 'stripe',
      products: [product.id],
      discount_id: fixed.id,
      metadata: { a: true },
    });
    const plain = await api.post('/v1/checkout-links/', { payment_processor: 'stripe', product_id: product.id });
    for (const body of [withDiscount.json, plain.json]) {
      expect(() => CheckoutLink$inboundSchema.parse(body)).not.toThrow();
      const fetched = (await api.get(`/v1/checkout-links/${body.id}`)).json;
      expect(() => CheckoutLink$inboundSchema.parse(fetched)).not.toThrow();
    }
    const updated = await api.call('PATCH', `/v1/checkout-links/${plain.json.id}`, {
      body: { label: 'x', return_url: 'https://shop.example/back' },
    });
    expect(() => CheckoutLink$inboundSchema.parse(updated.json)).not.toThrow();
    const list = (await api.get('/v1/checkout-links/')).json;
    expect(() => ListResourceCheckoutLink$inboundSchema.parse(list)).not.toThrow();
  });
});
