import { ListResourceOrganization$inboundSchema } from '@polar-sh/sdk/models/components/listresourceorganization.js';
import { ListResourceOrganizationAccessToken$inboundSchema } from '@polar-sh/sdk/models/components/listresourceorganizationaccesstoken.js';
import { Organization$inboundSchema } from '@polar-sh/sdk/models/components/organization.js';
import { OrganizationAccessToken$inboundSchema } from '@polar-sh/sdk/models/components/organizationaccesstoken.js';
import { OrganizationAccessTokenCreateResponse$inboundSchema } from '@polar-sh/sdk/models/components/organizationaccesstokencreateresponse.js';
import { HTTPValidationError } from '@polar-sh/sdk/models/errors/httpvalidationerror.js';
import { NotPermitted } from '@polar-sh/sdk/models/errors/notpermitted.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { addMember, signedInUser } from '../helpers/organizations.js';
import { createMerchant, polarSdk } from '../helpers/v1.js';

// @polar-sh/sdk 0.47.1 against /v1: every answer goes through the SDK's strict response schemas, so a field Till
// leaves out (or renders in the wrong shape) fails here as ResponseValidationError.

const daemon = useTestDaemon();

describe('@polar-sh/sdk organizations', () => {
  it('gets, lists and updates the organization', async () => {
    const { sdk, organization } = await createMerchant(daemon());
    const got = await sdk.organizations.get({ id: organization.id });
    expect(got).toMatchObject({
      id: organization.id,
      slug: organization.slug,
      status: 'active',
      defaultPresentmentCurrency: 'usd',
      accountId: null,
    });
    expect(got.createdAt).toBeInstanceOf(Date);

    const pages = [];
    for await (const page of await sdk.organizations.list({ limit: 1 })) pages.push(page.result);
    expect(pages.flatMap((page) => page.items.map((org) => org.id))).toEqual([organization.id]);

    const updated = await sdk.organizations.update({
      id: organization.id,
      organizationUpdate: {
        name: 'SDK Shop',
        email: 'help@sdk-shop.example',
        website: 'https://sdk-shop.example',
        socials: [{ platform: 'threads', url: 'https://threads.net/@sdkshop' }],
        details: { productDescription: 'Templates', switching: true, switchingFrom: 'gumroad' },
        featureSettings: { issueFundingEnabled: true },
        subscriptionSettings: {
          allowMultipleSubscriptions: true,
          prorationBehavior: 'invoice',
          benefitRevocationGracePeriod: 3,
          preventTrialAbuse: true,
          allowCustomerUpdates: false,
        },
        notificationSettings: { newOrder: false, newSubscription: true },
        customerPortalSettings: { usage: { show: false }, subscription: { updateSeats: false, updatePlan: true } },
        defaultTaxBehavior: 'exclusive',
      },
    });
    expect(updated).toMatchObject({
      name: 'SDK Shop',
      email: 'help@sdk-shop.example',
      socials: [{ platform: 'threads', url: 'https://threads.net/@sdkshop' }],
      prorationBehavior: 'invoice',
      allowCustomerUpdates: false,
      featureSettings: { issueFundingEnabled: true, walletsEnabled: false },
      subscriptionSettings: { benefitRevocationGracePeriod: 3, preventTrialAbuse: true },
      notificationSettings: { newOrder: false, newSubscription: true },
      customerPortalSettings: { usage: { show: false }, subscription: { updateSeats: false, updatePlan: true } },
      defaultTaxBehavior: 'exclusive',
    });
    expect(updated.detailsSubmittedAt).toBeInstanceOf(Date);
    expect(updated.modifiedAt).toBeInstanceOf(Date);
  });

  it('throws the SDK’s own error classes', async () => {
    const a = await createMerchant(daemon());
    const b = await createMerchant(daemon());
    await expect(a.sdk.organizations.get({ id: b.organization.id })).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(
      a.sdk.organizations.update({ id: b.organization.id, organizationUpdate: { name: 'Hijack' } }),
    ).rejects.toBeInstanceOf(ResourceNotFound);
    const invalid = await a.sdk.organizations
      .update({ id: a.organization.id, organizationUpdate: { email: 'nope' } })
      .catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(HTTPValidationError);
    expect((invalid as HTTPValidationError).detail?.[0]?.loc).toEqual(['body', 'email']);

    const member = await signedInUser(daemon(), 'Reader');
    await addMember(daemon(), a.organization.id, member.user.id, 'member');
    const asMember = polarSdk(daemon(), member.token);
    expect((await asMember.organizations.get({ id: a.organization.id })).id).toBe(a.organization.id);
    await expect(
      asMember.organizations.update({ id: a.organization.id, organizationUpdate: { name: 'By member' } }),
    ).rejects.toBeInstanceOf(NotPermitted);
  });

  it('creates an organization for a signed-in user', async () => {
    const merchant = await createMerchant(daemon());
    const asOwner = polarSdk(daemon(), merchant.owner.token);
    const slug = `sdk-${merchant.organization.slug}`;
    const created = await asOwner.organizations.create({
      name: 'Second Shop',
      slug,
      subscriptionSettings: {
        allowMultipleSubscriptions: false,
        prorationBehavior: 'prorate',
        benefitRevocationGracePeriod: 0,
        preventTrialAbuse: false,
        allowCustomerUpdates: true,
      },
    });
    expect(created).toMatchObject({ name: 'Second Shop', slug, status: 'active' });
    const taken = await asOwner.organizations.create({ name: 'Again', slug }).catch((error: unknown) => error);
    expect(taken).toBeInstanceOf(HTTPValidationError);
  });
});

describe('@polar-sh/sdk organization access tokens', () => {
  it('creates, pages through, updates and deletes tokens', async () => {
    const { sdk, organization } = await createMerchant(daemon());
    const created = [];
    for (const comment of ['one', 'two', 'three', 'four']) {
      // The test clock stands still; each token gets its own created_at so "newest first" is one order.
      daemon().clock.advance(1000);
      created.push(
        await sdk.organizationAccessTokens.create({
          comment,
          scopes: ['products:read', 'organizations:read'],
          expiresIn: 'P30D',
        }),
      );
    }
    expect(created[0]!.organizationAccessToken).toMatchObject({
      comment: 'one',
      organizationId: organization.id,
      scopes: ['products:read', 'organizations:read'],
    });
    expect(created[0]!.organizationAccessToken.expiresAt).toBeInstanceOf(Date);
    expect(created[0]!.token).toMatch(/^till_oat_/);

    const pages: string[][] = [];
    for await (const page of await sdk.organizationAccessTokens.list({ limit: 2 }))
      pages.push(page.result.items.map((token) => token.comment));
    // Five tokens (the merchant's own too) in pages of two, newest first; the iterator stops after the last page.
    expect(pages).toEqual([['four', 'three'], ['two', 'one'], ['test token']]);

    const renamed = await sdk.organizationAccessTokens.update({
      id: created[1]!.organizationAccessToken.id,
      organizationAccessTokenUpdate: { comment: 'renamed', scopes: ['files:read'] },
    });
    expect(renamed).toMatchObject({ comment: 'renamed', scopes: ['files:read'] });
    expect(renamed.modifiedAt).toBeInstanceOf(Date);

    await sdk.organizationAccessTokens.delete({ id: created[0]!.organizationAccessToken.id });
    const remaining = [];
    for await (const page of await sdk.organizationAccessTokens.list({ limit: 10 }))
      remaining.push(...page.result.items.map((token) => token.id));
    expect(remaining).toHaveLength(4);
    expect(remaining).not.toContain(created[0]!.organizationAccessToken.id);
    // The revoked token itself no longer authenticates.
    await expect(polarSdk(daemon(), created[0]!.token).organizations.list({})).rejects.toThrow(/401/);

    const invalid = await sdk.organizationAccessTokens
      .create({ comment: '', scopes: [] })
      .catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(HTTPValidationError);
  });
});

describe('raw /v1 answers parse with the SDK’s own response schemas', () => {
  it('Organization, its list, OrganizationAccessToken, its list and the create response', async () => {
    const { api, session, organization } = await createMerchant(daemon());
    const parse = (
      schema: { parse(value: unknown): unknown },
      response: { status: number; json: unknown; text: string },
      status = 200,
    ) => {
      expect(response.status, response.text).toBe(status);
      return schema.parse(response.json);
    };
    parse(Organization$inboundSchema, await api.get(`/v1/organizations/${organization.id}`));
    parse(
      Organization$inboundSchema,
      await api.call('PATCH', `/v1/organizations/${organization.id}`, {
        body: { name: 'Raw Shop', details: { about: 'x' } },
      }),
    );
    parse(
      Organization$inboundSchema,
      await session.post('/v1/organizations/', { name: 'Raw Two', slug: `raw-${organization.slug}` }),
      201,
    );
    parse(ListResourceOrganization$inboundSchema, await api.get('/v1/organizations/'));
    parse(ListResourceOrganization$inboundSchema, await session.get('/v1/organizations/'));

    const created = parse(
      OrganizationAccessTokenCreateResponse$inboundSchema,
      await api.post('/v1/organization-access-tokens/', {
        comment: 'raw',
        scopes: ['products:read'],
        expires_in: 'PT1H',
      }),
      201,
    ) as {
      organizationAccessToken: { id: string };
    };
    parse(
      OrganizationAccessToken$inboundSchema,
      await api.call('PATCH', `/v1/organization-access-tokens/${created.organizationAccessToken.id}`, {
        body: { comment: 'raw 2' },
      }),
    );
    parse(ListResourceOrganizationAccessToken$inboundSchema, await api.get('/v1/organization-access-tokens/'));
  });
});
