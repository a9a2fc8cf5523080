import { randomUUID } from 'node:crypto';
import { Benefit$inboundSchema } from '@polar-sh/sdk/models/components/benefit.js';
import { CustomField$inboundSchema } from '@polar-sh/sdk/models/components/customfield.js';
import { ListResourceBenefit$inboundSchema } from '@polar-sh/sdk/models/components/listresourcebenefit.js';
import { ListResourceBenefitGrant$inboundSchema } from '@polar-sh/sdk/models/components/listresourcebenefitgrant.js';
import { ListResourceCustomField$inboundSchema } from '@polar-sh/sdk/models/components/listresourcecustomfield.js';
import { HTTPValidationError } from '@polar-sh/sdk/models/errors/httpvalidationerror.js';
import { NotPermitted } from '@polar-sh/sdk/models/errors/notpermitted.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { createMerchant } from '../helpers/v1.js';

const daemon = useTestDaemon();

/** A downloadable file row as the files module writes it once uploaded. */
async function downloadableFile(organizationId: string): Promise<string> {
  const id = randomUUID();
  await daemon()
    .core.db('files')
    .insert({
      id,
      organization_id: organizationId,
      name: 'book.pdf',
      path: `${organizationId}/${id}/book.pdf`,
      mime_type: 'application/pdf',
      size: 1024,
      service: 'downloadable',
      upload_id: randomUUID(),
      is_uploaded: true,
      created_at: daemon().clock.now(),
    });
  return id;
}

describe('@polar-sh/sdk 0.47 against /v1/benefits', () => {
  it('creates each of the six types, gets, lists every page, updates and deletes', async () => {
    const { sdk, api, organization } = await createMerchant(daemon());
    const file = await downloadableFile(organization.id);
    // A meter_credit benefit names an existing meter of the organization.
    const { id: meterId } = await sdk.meters.create({
      name: 'Tokens',
      filter: { conjunction: 'and', clauses: [{ property: 'name', operator: 'eq', value: 'llm' }] },
      aggregation: { func: 'sum', property: 'tokens' },
    });

    const custom = await sdk.benefits.create({
      type: 'custom',
      description: 'Private Slack',
      properties: { note: 'Welcome' },
    });
    expect(custom).toMatchObject({
      type: 'custom',
      isDeleted: false,
      selectable: true,
      deletable: true,
      organizationId: organization.id,
      properties: { note: 'Welcome' },
    });
    expect(custom.createdAt).toBeInstanceOf(Date);
    const discord = await sdk.benefits.create({
      type: 'discord',
      description: 'Discord role',
      properties: { guildToken: '123456789012345678', roleId: '876543210987654321', kickMember: false },
    });
    expect(discord.properties).toEqual({
      guildId: '123456789012345678',
      guildToken: '123456789012345678',
      roleId: '876543210987654321',
      kickMember: false,
    });
    const github = await sdk.benefits.create({
      type: 'github_repository',
      description: 'Repo access',
      properties: { repositoryOwner: 'acme', repositoryName: 'private_repo', permission: 'maintain' },
    });
    expect(github.properties).toEqual({
      repositoryOwner: 'acme',
      repositoryName: 'private_repo',
      permission: 'maintain',
    });
    const downloadables = await sdk.benefits.create({
      type: 'downloadables',
      description: 'E-book',
      properties: { files: [file] },
    });
    expect(downloadables.properties).toEqual({ files: [file], archived: { [file]: false } });
    const license = await sdk.benefits.create({
      type: 'license_keys',
      description: 'License',
      metadata: { plan: 'pro' },
      properties: {
        prefix: 'ACME',
        expires: { ttl: 12, timeframe: 'month' },
        activations: { limit: 5, enableCustomerAdmin: true },
        limitUsage: 10,
      },
    });
    expect(license.properties).toEqual({
      prefix: 'ACME',
      expires: { ttl: 12, timeframe: 'month' },
      activations: { limit: 5, enableCustomerAdmin: true },
      limitUsage: 10,
    });
    expect(license.metadata).toEqual({ plan: 'pro' });
    const meter = await sdk.benefits.create({
      type: 'meter_credit',
      description: 'API credits',
      properties: { units: 1000, rollover: true, meterId },
    });
    expect(meter.properties).toEqual({ units: 1000, rollover: true, meterId });

    expect(await sdk.benefits.get({ id: license.id })).toEqual(license);

    const seen: string[] = [];
    let pages = 0;
    for await (const page of await sdk.benefits.list({ limit: 2 })) {
      pages += 1;
      expect(page.result.pagination).toEqual({ totalCount: 6, maxPage: 3 });
      seen.push(...page.result.items.map((item) => item.id));
    }
    expect(pages).toBe(3);
    expect(seen.sort()).toEqual(
      [custom, discord, github, downloadables, license, meter].map((benefit) => benefit.id).sort(),
    );
    const filtered = await sdk.benefits.list({ typeFilter: ['discord', 'custom'], query: 'disc' });
    expect(filtered.result.items.map((item) => item.id)).toEqual([discord.id]);

    const updated = await sdk.benefits.update({
      id: license.id,
      requestBody: { type: 'license_keys', description: 'Pro license', properties: { prefix: 'PRO' } },
    });
    expect(updated).toMatchObject({
      description: 'Pro license',
      properties: { prefix: 'PRO', expires: null, activations: null, limitUsage: null },
    });
    expect(updated.modifiedAt).toBeInstanceOf(Date);

    const grants = await sdk.benefits.grants({ id: custom.id });
    expect(grants.result).toEqual({ items: [], pagination: { totalCount: 0, maxPage: 0 } });

    await sdk.benefits.delete({ id: custom.id });
    await expect(sdk.benefits.get({ id: custom.id })).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(sdk.benefits.delete({ id: custom.id })).rejects.toBeInstanceOf(ResourceNotFound);

    // Every raw answer parses with the SDK's own schemas, so no required field is ever missing.
    const rawList = await api.get('/v1/benefits/', { query: { limit: '100' } });
    expect(rawList.json.items).toHaveLength(5);
    ListResourceBenefit$inboundSchema.parse(rawList.json);
    for (const item of rawList.json.items) Benefit$inboundSchema.parse((await api.get(`/v1/benefits/${item.id}`)).json);
    ListResourceBenefitGrant$inboundSchema.parse((await api.get(`/v1/benefits/${meter.id}/grants`)).json);
  });

  it('reports errors as the SDK’s error classes', async () => {
    const { sdk } = await createMerchant(daemon());
    await expect(sdk.benefits.get({ id: randomUUID() })).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(
      sdk.benefits.update({ id: randomUUID(), requestBody: { type: 'custom', description: 'Nope' } }),
    ).rejects.toBeInstanceOf(ResourceNotFound);
    const invalid = await sdk.benefits
      .create({ type: 'custom', description: 'ab', properties: {} })
      .catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(HTTPValidationError);
    expect((invalid as HTTPValidationError).detail?.[0]?.loc).toEqual(['body', 'description']);

    const benefit = await sdk.benefits.create({ type: 'custom', description: 'Fixed', properties: {} });
    await daemon().core.db('benefits').where({ id: benefit.id }).update({ deletable: false });
    await expect(sdk.benefits.delete({ id: benefit.id })).rejects.toBeInstanceOf(NotPermitted);
  });
});

describe('@polar-sh/sdk 0.47 against /v1/custom-fields', () => {
  it('creates each type, gets, lists every page, updates and deletes', async () => {
    const { sdk, api } = await createMerchant(daemon());
    const text = await sdk.customFields.create({
      type: 'text',
      slug: 'company',
      name: 'Company',
      properties: { formLabel: 'Company', textarea: true, minLength: 1, maxLength: 50 },
    });
    expect(text).toMatchObject({
      type: 'text',
      slug: 'company',
      properties: { formLabel: 'Company', textarea: true, minLength: 1, maxLength: 50 },
    });
    const number = await sdk.customFields.create({
      type: 'number',
      slug: 'seats',
      name: 'Seats',
      properties: { ge: 1, le: 10 },
    });
    const date = await sdk.customFields.create({ type: 'date', slug: 'start', name: 'Start', properties: {} });
    const checkbox = await sdk.customFields.create({
      type: 'checkbox',
      slug: 'terms',
      name: 'Terms',
      properties: { formHelpText: 'Read them first' },
    });
    const select = await sdk.customFields.create({
      type: 'select',
      slug: 'size',
      name: 'Size',
      properties: { options: [{ value: 's', label: 'Small' }] },
    });
    expect(select.properties).toEqual({ options: [{ value: 's', label: 'Small' }] });

    expect(await sdk.customFields.get({ id: number.id })).toEqual(number);

    const slugs: string[] = [];
    for await (const page of await sdk.customFields.list({ limit: 2 }))
      slugs.push(...page.result.items.map((item) => item.slug));
    expect(slugs).toEqual(['company', 'seats', 'size', 'start', 'terms']);
    const onlyDates = await sdk.customFields.list({ typeFilter: 'date' });
    expect(onlyDates.result.items.map((item) => item.id)).toEqual([date.id]);

    const updated = await sdk.customFields.update({
      id: select.id,
      customFieldUpdate: {
        type: 'select',
        name: 'Shirt size',
        properties: { options: [{ value: 'm', label: 'Medium' }] },
      },
    });
    expect(updated).toMatchObject({
      name: 'Shirt size',
      slug: 'size',
      properties: { options: [{ value: 'm', label: 'Medium' }] },
    });

    const duplicate = await sdk.customFields
      .create({ type: 'checkbox', slug: 'terms', name: 'Again', properties: {} })
      .catch((error: unknown) => error);
    expect(duplicate).toBeInstanceOf(HTTPValidationError);
    expect((duplicate as HTTPValidationError).detail?.[0]?.loc).toEqual(['body', 'slug']);

    await sdk.customFields.delete({ id: checkbox.id });
    await expect(sdk.customFields.get({ id: checkbox.id })).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(sdk.customFields.delete({ id: checkbox.id })).rejects.toBeInstanceOf(ResourceNotFound);

    const rawList = await api.get('/v1/custom-fields/');
    expect(rawList.json.items).toHaveLength(4);
    ListResourceCustomField$inboundSchema.parse(rawList.json);
    for (const item of rawList.json.items)
      CustomField$inboundSchema.parse((await api.get(`/v1/custom-fields/${item.id}`)).json);
  });
});
