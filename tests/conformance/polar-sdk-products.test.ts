import { randomUUID } from 'node:crypto';
import { ListResourceProduct$inboundSchema } from '@polar-sh/sdk/models/components/listresourceproduct.js';
import { Product$inboundSchema } from '@polar-sh/sdk/models/components/product.js';
import { HTTPValidationError } from '@polar-sh/sdk/models/errors/httpvalidationerror.js';
import { NotPermitted } from '@polar-sh/sdk/models/errors/notpermitted.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { uploadFile } from '../helpers/files.js';
import { addMember, signedInUser } from '../helpers/organizations.js';
import { createMerchant, polarSdk } from '../helpers/v1.js';

const daemon = useTestDaemon();

describe('@polar-sh/sdk 0.47 against /v1/products', () => {
  it('creates one-time and recurring products with every price type and reads them back', async () => {
    const { sdk, api, organization } = await createMerchant(daemon());
    const { id: meterId } = await sdk.meters.create({
      name: 'API calls',
      filter: { conjunction: 'and', clauses: [{ property: 'name', operator: 'eq', value: 'api_call' }] },
      aggregation: { func: 'count' },
    });
    const media = await uploadFile(api, undefined, { service: 'product_media' });
    const field = await sdk.customFields.create({ type: 'text', slug: 'company', name: 'Company', properties: {} });

    const book = await sdk.products.create({
      name: 'E-book',
      description: 'A book',
      metadata: { sku: 'B-1', pages: 320 },
      prices: [{ amountType: 'fixed', priceAmount: 1500, priceCurrency: 'usd' }],
      medias: [media.id],
      attachedCustomFields: [{ customFieldId: field.id, required: true }],
    });
    expect(book).toMatchObject({
      name: 'E-book',
      isRecurring: false,
      recurringInterval: null,
      organizationId: organization.id,
      metadata: { sku: 'B-1', pages: 320 },
    });
    expect(book.createdAt).toBeInstanceOf(Date);
    expect(book.prices[0]).toMatchObject({
      amountType: 'fixed',
      priceAmount: 1500,
      priceCurrency: 'usd',
      productId: book.id,
      isArchived: false,
    });
    expect(book.medias[0]).toMatchObject({ id: media.id, service: 'product_media', isUploaded: true });
    expect(book.attachedCustomFields[0]).toMatchObject({
      customFieldId: field.id,
      required: true,
      order: 0,
      customField: { slug: 'company' },
    });

    const tip = await sdk.products.create({
      name: 'Tip jar',
      prices: [{ amountType: 'custom', minimumAmount: 100, maximumAmount: 5000, presetAmount: 500 }],
    });
    expect(tip.prices[0]).toMatchObject({
      amountType: 'custom',
      minimumAmount: 100,
      maximumAmount: 5000,
      presetAmount: 500,
    });
    const sampler = await sdk.products.create({ name: 'Sampler', prices: [{ amountType: 'free' }] });
    expect(sampler.prices[0]).toMatchObject({ amountType: 'free' });

    const plan = await sdk.products.create({
      name: 'Pro plan',
      recurringInterval: 'month',
      trialInterval: 'day',
      trialIntervalCount: 7,
      prices: [
        { amountType: 'fixed', priceAmount: 2900 },
        { amountType: 'metered_unit', meterId, unitAmount: '0.25', capAmount: 10_000 },
      ],
    });
    expect(plan).toMatchObject({
      isRecurring: true,
      recurringInterval: 'month',
      recurringIntervalCount: 1,
      trialInterval: 'day',
      trialIntervalCount: 7,
    });
    expect(plan.prices[1]).toMatchObject({
      amountType: 'metered_unit',
      unitAmount: '0.25',
      capAmount: 10_000,
      meterId,
      meter: { id: meterId, name: 'API calls', unit: 'scalar', customLabel: null, customMultiplier: null },
    });
    const yearly = await sdk.products.create({
      name: 'Yearly',
      recurringInterval: 'year',
      recurringIntervalCount: 2,
      prices: [{ amountType: 'custom' }],
    });
    expect(yearly).toMatchObject({ recurringInterval: 'year', recurringIntervalCount: 2 });

    expect(await sdk.products.get({ id: plan.id })).toEqual(plan);
    for (const product of [book, tip, sampler, plan, yearly]) {
      const raw = await api.get(`/v1/products/${product.id}`);
      expect(Product$inboundSchema.safeParse(raw.json).success, raw.text).toBe(true);
    }
    const rawList = await api.get('/v1/products/', { query: { limit: '100' } });
    expect(ListResourceProduct$inboundSchema.safeParse(rawList.json).success).toBe(true);
  });

  it('lists every page with the SDK’s iterator and filters', async () => {
    const { sdk } = await createMerchant(daemon());
    const created = [];
    for (let i = 0; i < 5; i++) {
      created.push(
        await sdk.products.create({
          name: `Product ${i}`,
          prices: [{ amountType: 'fixed', priceAmount: 1000 + i * 100 }],
        }),
      );
      daemon().clock.advance(1000);
    }
    const seen: string[] = [];
    let pages = 0;
    for await (const page of await sdk.products.list({ limit: 2 })) {
      pages += 1;
      expect(page.result.pagination).toEqual({ totalCount: 5, maxPage: 3 });
      seen.push(...page.result.items.map((item) => item.id));
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(created.map((product) => product.id).reverse());
    const byName = await sdk.products.list({ query: 'product 3', sorting: ['name'] });
    expect(byName.result.items.map((item) => item.name)).toEqual(['Product 3']);
    const oneTime = await sdk.products.list({
      isRecurring: false,
      isArchived: false,
      id: [created[0]!.id, created[1]!.id],
    });
    expect(oneTime.result.pagination.totalCount).toBe(2);
  });

  it('updates prices (archiving the replaced ones), archives the product and sets its benefits', async () => {
    const { sdk } = await createMerchant(daemon());
    const product = await sdk.products.create({
      name: 'Course',
      recurringInterval: 'month',
      prices: [{ amountType: 'fixed', priceAmount: 1000 }],
    });
    const oldPrice = product.prices[0]!;
    const meter = await sdk.meters.create({
      name: 'Lessons',
      filter: { conjunction: 'and', clauses: [{ property: 'name', operator: 'eq', value: 'lesson' }] },
      aggregation: { func: 'count' },
    });
    const repriced = await sdk.products.update({
      id: product.id,
      productUpdate: { name: 'Course 2', prices: [{ amountType: 'fixed', priceAmount: 1200 }] },
    });
    expect(repriced.name).toBe('Course 2');
    expect(repriced.prices).toHaveLength(1);
    expect(repriced.prices[0]).toMatchObject({ amountType: 'fixed', priceAmount: 1200 });
    expect(repriced.prices[0]!.id).not.toBe(oldPrice.id);
    const kept = await sdk.products.update({
      id: product.id,
      productUpdate: {
        prices: [{ id: repriced.prices[0]!.id }, { amountType: 'metered_unit', meterId: meter.id, unitAmount: 1.5 }],
      },
    });
    expect(kept.prices.map((price) => price.id)[0]).toBe(repriced.prices[0]!.id);
    expect(kept.prices[1]).toMatchObject({ amountType: 'metered_unit', unitAmount: '1.5', meter: { name: 'Lessons' } });

    const archived = await sdk.products.update({ id: product.id, productUpdate: { isArchived: true } });
    expect(archived.isArchived).toBe(true);
    expect((await sdk.products.list({ isArchived: true })).result.items.map((item) => item.id)).toEqual([product.id]);

    const perk = await sdk.benefits.create({
      type: 'custom',
      description: 'Office hours',
      properties: { note: 'Book a slot' },
    });
    const second = await sdk.benefits.create({ type: 'custom', description: 'Community', properties: { note: null } });
    const withBenefits = await sdk.products.updateBenefits({
      id: product.id,
      productBenefitsUpdate: { benefits: [second.id, perk.id] },
    });
    expect(withBenefits.benefits.map((item) => item.id)).toEqual([second.id, perk.id]);
    expect(withBenefits.benefits[1]).toMatchObject({ type: 'custom', description: 'Office hours' });
    expect((await sdk.products.list({ benefitId: perk.id })).result.items.map((item) => item.id)).toEqual([product.id]);
  });

  it('raises the SDK’s own error classes', async () => {
    const { sdk } = await createMerchant(daemon());
    const other = await createMerchant(daemon());
    const foreign = await other.sdk.products.create({ name: 'Theirs', prices: [{ amountType: 'free' }] });
    await expect(sdk.products.get({ id: foreign.id })).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(sdk.products.get({ id: randomUUID() })).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(sdk.products.update({ id: foreign.id, productUpdate: { name: 'Mine now' } })).rejects.toBeInstanceOf(
      ResourceNotFound,
    );
    await expect(
      sdk.products.updateBenefits({ id: foreign.id, productBenefitsUpdate: { benefits: [] } }),
    ).rejects.toBeInstanceOf(ResourceNotFound);

    const invalid = await sdk.products
      .create({ name: 'Bad', prices: [{ amountType: 'custom', minimumAmount: 1000, maximumAmount: 100 }] })
      .catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(HTTPValidationError);
    expect((invalid as HTTPValidationError).detail?.[0]?.loc).toEqual(['body', 'prices', 0, 'maximum_amount']);
    const mine = await sdk.products.create({
      name: 'Mine',
      recurringInterval: 'month',
      prices: [{ amountType: 'free' }],
    });
    await expect(
      sdk.products.update({ id: mine.id, productUpdate: { recurringInterval: 'year' } }),
    ).rejects.toBeInstanceOf(HTTPValidationError);
    await expect(
      sdk.products.updateBenefits({ id: mine.id, productBenefitsUpdate: { benefits: [randomUUID()] } }),
    ).rejects.toBeInstanceOf(HTTPValidationError);

    const reader = await signedInUser(daemon(), 'Reader');
    await addMember(daemon(), other.organization.id, reader.user.id, 'member');
    const asMember = polarSdk(daemon(), reader.token);
    expect((await asMember.products.get({ id: foreign.id })).id).toBe(foreign.id);
    await expect(asMember.products.update({ id: foreign.id, productUpdate: { name: 'Nope' } })).rejects.toBeInstanceOf(
      NotPermitted,
    );
  });
});
