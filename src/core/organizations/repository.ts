import type { Db } from '../database/index.js';
import { dialect, markChanged, parseJson, toDate, toDateOrNull } from '../database/index.js';
import type { ListOptions } from '../kernel/pagination.js';
import { paginate } from '../kernel/pagination.js';
import type { ReadCache } from '../cache/read-cache.js';

export interface Organization {
  id: string;
  name: string;
  slug: string;
  logo: string | null;
  /** The stored JSON text; routes parse it or not, as Better Auth does on each. */
  metadata: string | null;
  createdAt: Date;
}

export interface Member {
  id: string;
  organizationId: string;
  userId: string;
  role: string;
  createdAt: Date;
}

export interface MemberUser {
  id: string;
  name: string;
  email: string;
  image: string | null;
}

type Row = Record<string, unknown>;

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

function merchantFromRow(row: Row): MerchantOrganization {
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

function merchantToRow(settings: MerchantSettings): Row {
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

function organizationFromRow(row: Row): Organization {
  return {
    id: row.id as string,
    name: row.name as string,
    slug: row.slug as string,
    logo: (row.logo as string | null) ?? null,
    metadata: (row.metadata as string | null) ?? null,
    createdAt: toDate(row.created_at),
  };
}

function memberFromRow(row: Row): Member {
  return {
    id: row.id as string,
    organizationId: row.organization_id as string,
    userId: row.user_id as string,
    role: row.role as string,
    createdAt: toDate(row.created_at),
  };
}

function memberUserFromRow(row: Row): MemberUser {
  return {
    id: row.u_id as string,
    name: row.u_name as string,
    email: row.u_email as string,
    image: (row.u_image as string | null) ?? null,
  };
}

const MEMBER_WITH_USER = ['m.*', 'u.id as u_id', 'u.name as u_name', 'u.email as u_email', 'u.image as u_image'];

/**
 * The organization table, for the member side (Better Auth's organization routes) and the merchant side (/v1).
 * Given the daemon's `readCache`, findMerchantView may be answered from it.
 */
export function organizationsRepository(db: Db, readCache?: ReadCache | null) {
  return {
    async insert(org: Organization): Promise<void> {
      await db('organizations').insert({
        id: org.id,
        name: org.name,
        slug: org.slug,
        logo: org.logo,
        metadata: org.metadata,
        created_at: org.createdAt,
      });
    },
    async findById(id: string): Promise<Organization | null> {
      const row = await db('organizations').where({ id }).first();
      return row ? organizationFromRow(row) : null;
    },
    async findBySlug(slug: string): Promise<Organization | null> {
      const row = await db('organizations').where({ slug }).first();
      return row ? organizationFromRow(row) : null;
    },
    /**
     * Serializes changes that must see a consistent set of owners or members. PostgreSQL locks the organization
     * row until the transaction ends; SQLite has a single writer, and the caller's transaction already holds it
     * once this write-like statement has run.
     */
    async lock(id: string): Promise<Organization | null> {
      if (dialect(db) === 'postgres') {
        const row = await db('organizations').where({ id }).forUpdate().first();
        return row ? organizationFromRow(row) : null;
      }
      // A no-op write takes SQLite's write lock now, so a concurrent transaction cannot read stale owners first.
      await db('organizations').where({ id }).update({ id });
      return this.findById(id);
    },
    async update(
      id: string,
      changes: Partial<Pick<Organization, 'name' | 'slug' | 'logo' | 'metadata'>>,
    ): Promise<void> {
      const row: Row = {};
      if (changes.name !== undefined) row.name = changes.name;
      if (changes.slug !== undefined) row.slug = changes.slug;
      if (changes.logo !== undefined) row.logo = changes.logo;
      if (changes.metadata !== undefined) row.metadata = changes.metadata;
      if (Object.keys(row).length > 0) await db('organizations').where({ id }).update(row);
    },
    async delete(id: string): Promise<void> {
      // Its customers and meters go with it (ON DELETE CASCADE).
      markChanged(db, 'customers', id);
      markChanged(db, 'meters', id);
      await db('organizations').where({ id }).del();
    },
    async listForUser(userId: string): Promise<Organization[]> {
      const rows = await db('organizations as o')
        .join('members as m', 'm.organization_id', 'o.id')
        .where('m.user_id', userId)
        .select('o.*')
        .orderBy('o.created_at', 'asc')
        .orderBy('o.id', 'asc');
      return rows.map(organizationFromRow);
    },

    // The organization as the merchant API (/v1) sees it: the same row with Polar's settings.
    /**
     * Checkouts read the selling organization on every purchase, so this may be answered by the daemon's read cache
     * (frozen); every write to the row announces the organization (organizations and merchant services).
     */
    async findMerchantView(id: string): Promise<MerchantOrganization | null> {
      const load = async () => {
        const row = await db('organizations').where({ id }).first();
        return row ? merchantFromRow(row) : null;
      };
      const cache = readCache?.for(db);
      if (!cache) return load();
      return cache.read(db, `organization:${id}`, async () => {
        const organization = await load();
        return organization ? { value: organization, organizationId: id } : null;
      });
    },
    async listMerchantViews(organizationIds: string[], filters: { slug?: string }, options: ListOptions) {
      const query = db('organizations').whereIn('id', organizationIds);
      if (filters.slug !== undefined) query.andWhere('slug', filters.slug);
      const page = await paginate<Row>(query, options, { created_at: 'created_at', slug: 'slug', name: 'name' });
      return { items: page.rows.map(merchantFromRow), pagination: page.pagination };
    },
    async saveMerchantView(organization: MerchantOrganization): Promise<void> {
      await db('organizations').where({ id: organization.id }).update(merchantToRow(organization));
    },
  };
}

export function membersRepository(db: Db) {
  return {
    async insert(member: Member): Promise<void> {
      await db('members').insert({
        id: member.id,
        organization_id: member.organizationId,
        user_id: member.userId,
        role: member.role,
        created_at: member.createdAt,
      });
    },
    async find(organizationId: string, userId: string): Promise<Member | null> {
      const row = await db('members').where({ organization_id: organizationId, user_id: userId }).first();
      return row ? memberFromRow(row) : null;
    },
    async findById(id: string): Promise<Member | null> {
      const row = await db('members').where({ id }).first();
      return row ? memberFromRow(row) : null;
    },
    async findByEmail(organizationId: string, email: string): Promise<Member | null> {
      const row = await db('members as m')
        .join('users as u', 'u.id', 'm.user_id')
        .where('m.organization_id', organizationId)
        .andWhere('u.email', email.toLowerCase())
        .select('m.*')
        .first();
      return row ? memberFromRow(row) : null;
    },
    async withUser(id: string): Promise<{ member: Member; user: MemberUser } | null> {
      const row = await db('members as m')
        .join('users as u', 'u.id', 'm.user_id')
        .where('m.id', id)
        .select(MEMBER_WITH_USER)
        .first();
      return row ? { member: memberFromRow(row), user: memberUserFromRow(row) } : null;
    },
    async listWithUsers(
      organizationId: string,
      limit: number,
      offset = 0,
    ): Promise<Array<{ member: Member; user: MemberUser }>> {
      const rows = await db('members as m')
        .join('users as u', 'u.id', 'm.user_id')
        .where('m.organization_id', organizationId)
        .select(MEMBER_WITH_USER)
        .orderBy('m.created_at', 'asc')
        .orderBy('m.id', 'asc')
        .limit(limit)
        .offset(offset);
      return rows.map((row: Row) => ({ member: memberFromRow(row), user: memberUserFromRow(row) }));
    },
    async count(organizationId: string): Promise<number> {
      const row = await db('members').where({ organization_id: organizationId }).count({ n: '*' }).first();
      return Number(row?.n ?? 0);
    },
    async countForUser(userId: string): Promise<number> {
      const row = await db('members').where({ user_id: userId }).count({ n: '*' }).first();
      return Number(row?.n ?? 0);
    },
    async roles(organizationId: string): Promise<Array<{ id: string; role: string }>> {
      return db('members').where({ organization_id: organizationId }).select('id', 'role');
    },
    async listForUser(userId: string): Promise<Member[]> {
      return (await db('members').where({ user_id: userId })).map(memberFromRow);
    },
    async updateRole(id: string, role: string): Promise<void> {
      await db('members').where({ id }).update({ role });
    },
    async delete(id: string): Promise<void> {
      await db('members').where({ id }).del();
    },
  };
}
