import type { Db } from '../database/index.js';
import { parseJson, toDate, toDateOrNull } from '../database/index.js';
import type { ListOptions } from '../kernel/pagination.js';
import { paginate } from '../kernel/pagination.js';
import { readCacheOf } from '../cache/read-cache.js';

type Flags = Record<string, boolean>;

/**
 * An organization as the merchant API sees it. The row is Better Auth's organization row (its `logo` is Polar's
 * `avatar_url`); the settings objects hold only what the merchant set, defaults are filled in when rendering.
 */
export interface MerchantOrganization {
  id: string;
  name: string;
  slug: string;
  avatarUrl: string | null;
  email: string | null;
  website: string | null;
  socials: Array<{ platform: string; url: string }>;
  details: Record<string, unknown> | null;
  detailsSubmittedAt: Date | null;
  country: string | null;
  featureSettings: Record<string, boolean | string[] | null>;
  subscriptionSettings: Record<string, boolean | number | string>;
  notificationSettings: Flags;
  customerEmailSettings: Flags;
  customerPortalSettings: { usage?: Flags; subscription?: Flags; customer?: Flags };
  defaultPresentmentCurrency: string | null;
  defaultTaxBehavior: string | null;
  createdAt: Date;
  modifiedAt: Date | null;
}

export type MerchantSettings = Omit<MerchantOrganization, 'id' | 'slug' | 'createdAt'>;

type Row = Record<string, unknown>;

function fromRow(row: Row): MerchantOrganization {
  return {
    id: String(row.id),
    name: String(row.name),
    slug: String(row.slug),
    avatarUrl: (row.logo as string | null) ?? null,
    email: (row.email as string | null) ?? null,
    website: (row.website as string | null) ?? null,
    socials: parseJson(row.socials) ?? [],
    details: parseJson(row.details),
    detailsSubmittedAt: toDateOrNull(row.details_submitted_at),
    country: (row.country as string | null) ?? null,
    featureSettings: parseJson(row.feature_settings) ?? {},
    subscriptionSettings: parseJson(row.subscription_settings) ?? {},
    notificationSettings: parseJson(row.notification_settings) ?? {},
    customerEmailSettings: parseJson(row.customer_email_settings) ?? {},
    customerPortalSettings: parseJson(row.customer_portal_settings) ?? {},
    defaultPresentmentCurrency: (row.default_presentment_currency as string | null) ?? null,
    defaultTaxBehavior: (row.default_tax_behavior as string | null) ?? null,
    createdAt: toDate(row.created_at),
    modifiedAt: toDateOrNull(row.modified_at),
  };
}

function json(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

function toRow(settings: MerchantSettings): Row {
  return {
    name: settings.name,
    logo: settings.avatarUrl,
    email: settings.email,
    website: settings.website,
    socials: json(settings.socials),
    details: json(settings.details),
    details_submitted_at: settings.detailsSubmittedAt,
    country: settings.country,
    feature_settings: json(settings.featureSettings),
    subscription_settings: json(settings.subscriptionSettings),
    notification_settings: json(settings.notificationSettings),
    customer_email_settings: json(settings.customerEmailSettings),
    customer_portal_settings: json(settings.customerPortalSettings),
    default_presentment_currency: settings.defaultPresentmentCurrency,
    default_tax_behavior: settings.defaultTaxBehavior,
    modified_at: settings.modifiedAt,
  };
}

export function merchantOrganizationsRepository(db: Db) {
  return {
    /**
     * Checkouts read the selling organization on every purchase, so this may be answered by the daemon's read cache
     * (frozen); every write to the row announces the organization (organizations and merchant-organizations services).
     */
    async findById(id: string): Promise<MerchantOrganization | null> {
      const load = async () => {
        const row = await db('organizations').where({ id }).first();
        return row ? fromRow(row) : null;
      };
      const cache = readCacheOf(db);
      if (!cache) return load();
      return cache.read(db, `organization:${id}`, async () => {
        const organization = await load();
        return organization ? { value: organization, organizationId: id } : null;
      });
    },
    async list(organizationIds: string[], filters: { slug?: string }, options: ListOptions) {
      const query = db('organizations').whereIn('id', organizationIds);
      if (filters.slug !== undefined) query.andWhere('slug', filters.slug);
      const page = await paginate<Row>(query, options, { created_at: 'created_at', slug: 'slug', name: 'name' });
      return { items: page.rows.map(fromRow), pagination: page.pagination };
    },
    async save(organization: MerchantOrganization): Promise<void> {
      await db('organizations').where({ id: organization.id }).update(toRow(organization));
    },
  };
}
