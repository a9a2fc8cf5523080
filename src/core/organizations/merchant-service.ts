import type { Clock } from '../kernel/clock.js';
import type { Db } from '../database/index.js';
import type { Changing } from '../cache/changing.js';
import { merchantInvalidation, type ReadCache } from '../cache/read-cache.js';
import { fieldError, notPermitted, resourceNotFound } from '../polar-api/errors.js';
import { DomainError } from '../kernel/errors.js';
import { recordEvent } from '../kernel/outbox.js';
import type { ListOptions, Page } from '../kernel/pagination.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { authorize, organizationFilter } from '../polar-api/actor.js';
import { iso, isoOrNull } from '../polar-api/schemas.js';
import { organizationsRepository } from './repository.js';
import type { OrganizationService } from './service.js';
import type { MerchantOrganization } from './repository.js';
import type {
  FeatureSettings,
  OrganizationCreateInput,
  OrganizationSettingsInput,
  OrganizationUpdateInput,
  OrganizationWire,
  SubscriptionSettings,
} from './merchant-schemas.js';
import { CUSTOMER_EMAIL_KEYS, FEATURE_FLAGS, NOTIFICATION_KEYS } from './merchant-schemas.js';

// Polar's defaults for a new organization, so an untouched Till organization reads like a fresh Polar one.
const SUBSCRIPTION_DEFAULTS: SubscriptionSettings = {
  allow_multiple_subscriptions: false,
  proration_behavior: 'prorate',
  benefit_revocation_grace_period: 0,
  prevent_trial_abuse: false,
  allow_customer_updates: true,
};
const PORTAL_DEFAULTS = {
  usage: { show: true },
  subscription: { update_seats: true, update_plan: true, pause: false },
  customer: { allow_email_change: true },
};

function allSet<K extends string>(keys: readonly K[], value: boolean): Record<K, boolean> {
  return Object.fromEntries(keys.map((key) => [key, value])) as Record<K, boolean>;
}

/** Keys given in a partial settings object, without the ones left out. */
function given<T extends object>(partial: T): Partial<T> {
  return Object.fromEntries(Object.entries(partial).filter(([, value]) => value !== undefined)) as Partial<T>;
}

export function organizationWire(org: MerchantOrganization): OrganizationWire {
  const subscription = { ...SUBSCRIPTION_DEFAULTS, ...org.subscriptionSettings } as SubscriptionSettings;
  const portal = org.customerPortalSettings;
  return {
    created_at: iso(org.createdAt),
    modified_at: isoOrNull(org.modifiedAt),
    id: org.id,
    name: org.name,
    slug: org.slug,
    avatar_url: org.avatarUrl,
    proration_behavior: subscription.proration_behavior,
    allow_customer_updates: subscription.allow_customer_updates,
    email: org.email,
    website: org.website,
    socials: org.socials as OrganizationWire['socials'],
    // Self-hosted: nobody reviews the merchant, so every organization is active from the start.
    status: 'active',
    details_submitted_at: isoOrNull(org.detailsSubmittedAt),
    onboarding_resubmission_requested_at: null,
    sso_enforced: false,
    default_presentment_currency: org.defaultPresentmentCurrency ?? 'usd',
    default_tax_behavior: (org.defaultTaxBehavior ?? 'location') as OrganizationWire['default_tax_behavior'],
    feature_settings: {
      ...allSet(FEATURE_FLAGS, false),
      overview_metrics: null,
      ...org.featureSettings,
    } as FeatureSettings,
    subscription_settings: subscription,
    notification_settings: { ...allSet(NOTIFICATION_KEYS, true), ...org.notificationSettings },
    customer_email_settings: { ...allSet(CUSTOMER_EMAIL_KEYS, true), ...org.customerEmailSettings },
    customer_portal_settings: {
      usage: { ...PORTAL_DEFAULTS.usage, ...portal.usage },
      subscription: { ...PORTAL_DEFAULTS.subscription, ...portal.subscription },
      customer: { ...PORTAL_DEFAULTS.customer, ...portal.customer },
    },
    dispute_settings: { auto_accept_below_amount: null },
    embed_hosts: [],
    embed_hosts_enforced: false,
    country: org.country,
    // No payment processor account stands behind a self-hosted organization, and nothing limits what it may do.
    account_id: null,
    payout_account_id: null,
    capabilities: allSet(
      ['checkout_payments', 'subscription_renewals', 'payouts', 'refunds', 'api_access', 'dashboard_access'] as const,
      true,
    ),
  };
}

/**
 * The organization after an update. Settings objects merge key by key (what is left out keeps its value); `null`
 * clears the nullable fields (avatar, e-mail, website, country, socials) and means "unchanged" for the rest.
 */
export function applySettings(
  org: MerchantOrganization,
  input: OrganizationSettingsInput & { name?: string | null },
  now: Date,
): MerchantOrganization {
  const next: MerchantOrganization = { ...org, modifiedAt: now };
  if (input.name != null) next.name = input.name;
  if (input.avatar_url !== undefined) next.avatarUrl = input.avatar_url;
  if (input.email !== undefined) next.email = input.email;
  if (input.website !== undefined) next.website = input.website;
  if (input.country !== undefined) next.country = input.country;
  if (input.socials !== undefined) next.socials = input.socials ?? [];
  if (input.details != null) {
    next.details = given(input.details);
    next.detailsSubmittedAt = now;
  }
  if (input.feature_settings != null)
    next.featureSettings = { ...org.featureSettings, ...given(input.feature_settings) };
  if (input.subscription_settings != null)
    next.subscriptionSettings = { ...org.subscriptionSettings, ...given(input.subscription_settings) };
  if (input.notification_settings != null)
    next.notificationSettings = { ...org.notificationSettings, ...given(input.notification_settings) } as Record<
      string,
      boolean
    >;
  if (input.customer_email_settings != null)
    next.customerEmailSettings = { ...org.customerEmailSettings, ...given(input.customer_email_settings) } as Record<
      string,
      boolean
    >;
  const portal = input.customer_portal_settings;
  if (portal != null) {
    const current = org.customerPortalSettings;
    next.customerPortalSettings = {
      usage: { ...current.usage, ...given(portal.usage ?? {}) } as Record<string, boolean>,
      subscription: { ...current.subscription, ...given(portal.subscription ?? {}) } as Record<string, boolean>,
      customer: { ...current.customer, ...given(portal.customer ?? {}) } as Record<string, boolean>,
    };
  }
  if (input.default_presentment_currency != null) next.defaultPresentmentCurrency = input.default_presentment_currency;
  if (input.default_tax_behavior != null) next.defaultTaxBehavior = input.default_tax_behavior;
  return next;
}

/**
 * /v1's organizations (Polar's `Organization`): the merchant side of the same organizations the member side
 * (service.ts, Better Auth's organization plugin) manages, over the same repository.
 */
export function createMerchantOrganizationService(deps: {
  db: Db;
  clock: Clock;
  organizations: OrganizationService;
  changing: Changing;
  readCache: ReadCache;
}) {
  const { db, clock, organizations } = deps;
  const repo = organizationsRepository(db, deps.readCache);

  return {
    async get(actor: MerchantActor, id: string): Promise<OrganizationWire> {
      authorize(actor, id, 'read');
      const org = await repo.findMerchantView(id);
      if (!org) throw resourceNotFound();
      return organizationWire(org);
    },

    async list(actor: MerchantActor, query: ListOptions & { slug?: string }): Promise<Page<OrganizationWire>> {
      const page = await repo.listMerchantViews(organizationFilter(actor, undefined), { slug: query.slug }, query);
      return { items: page.items.map(organizationWire), pagination: page.pagination };
    },

    async update(actor: MerchantActor, id: string, input: OrganizationUpdateInput): Promise<OrganizationWire> {
      authorize(actor, id, 'write');
      // Checkouts read the organization row through the daemon's read cache: the change drops it.
      return deps.changing(async (trx, announce) => {
        announce([merchantInvalidation(id)]);
        // Locked so two concurrent updates merge their settings one after the other instead of losing one.
        const organizations = organizationsRepository(trx, deps.readCache);
        if (!(await organizations.lock(id))) throw resourceNotFound();
        const current = await organizations.findMerchantView(id);
        if (!current) throw resourceNotFound();
        const now = clock.now();
        const next = applySettings(current, input, now);
        await organizations.saveMerchantView(next);
        const wire = organizationWire(next);
        await recordEvent(trx, { organizationId: id, type: 'organization.updated', data: wire, at: now });
        return wire;
      });
    },

    /**
     * Polar's create, for people only: Better Auth's create makes the organization and the caller its owner (with
     * its allow and limit settings), then the merchant settings sent along are stored. Tokens belong to one
     * organization and cannot make another, as on Polar.
     */
    async create(actor: MerchantActor, input: OrganizationCreateInput): Promise<OrganizationWire> {
      if (actor.kind !== 'user' || !actor.auth)
        throw notPermitted(
          'Organizations are created by a signed-in user (session token or API key), not by an organization access token.',
        );
      let id: string;
      try {
        // /v1 has no "active organization": the caller's session keeps the one it had.
        const created = await organizations.create(actor.auth, {
          name: input.name,
          slug: input.slug,
          logo: input.avatar_url ?? undefined,
          keepCurrentActiveOrganization: true,
        });
        id = created.organization.id;
      } catch (error) {
        if (error instanceof DomainError && error.code === 'ORGANIZATION_ALREADY_EXISTS')
          throw fieldError(['body', 'slug'], 'An organization with this slug already exists.');
        if (error instanceof DomainError && error.status === 403) throw notPermitted(error.message);
        throw error;
      }
      const org = await repo.findMerchantView(id);
      if (!org) throw resourceNotFound();
      // A separate write from Better Auth's transaction; the settings were validated before either ran.
      const next = { ...applySettings(org, input, clock.now()), modifiedAt: null };
      await deps.changing(async (trx, announce) => {
        announce([merchantInvalidation(id)]);
        await organizationsRepository(trx).saveMerchantView(next);
      });
      return organizationWire(next);
    },
  };
}

export type MerchantOrganizationService = ReturnType<typeof createMerchantOrganizationService>;
