import { z } from 'zod';
import { datetime, listResource } from '../polar-api/schemas.js';

/**
 * The merchant side of an organization on /v1 (Polar's `Organization`). Outputs carry the union of what SDK 0.47
 * requires and what the 2026-04 OpenAPI document lists, since the SDK ignores keys it does not know. Inputs are
 * strict: a key Till does not know is a 422, not silently dropped.
 */

export const SOCIAL_PLATFORMS = [
  'x',
  'github',
  'facebook',
  'instagram',
  'youtube',
  'tiktok',
  'linkedin',
  'threads',
  'discord',
  'other',
] as const;
/** What Till's plan changes implement (subscription-changes/plan.ts); Polar's preview-only `reset` is refused. */
export const PRORATION_BEHAVIORS = ['invoice', 'prorate', 'next_period'] as const;
export const TAX_BEHAVIORS = ['location', 'inclusive', 'exclusive'] as const;
export const ORGANIZATION_STATUSES = [
  'created',
  'review',
  'snoozed',
  'denied',
  'active',
  'blocked',
  'offboarding',
  'offboarded',
] as const;

// Polar's CountryAlpha2Input (sanctioned countries are not accepted) and PresentmentCurrency enums.
export const COUNTRIES = (
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF ' +
  'CG CH CI CK CL CM CN CO CR CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI ' +
  'GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IS IT JE JM JO JP KE KG KH KI KM KN KR KW KY KZ LA ' +
  'LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO ' +
  'NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST ' +
  'SV SX SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
).split(' ') as [string, ...string[]];
export const PRESENTMENT_CURRENCIES = (
  'aed all amd aoa ars aud awg azn bam bbd bdt bif bmd bnd bob brl bsd bwp bzd cad cdf chf clp cny cop crc cve czk djf dkk dop ' +
  'dzd egp etb eur fjd fkp gbp gel gip gmd gnf gtq gyd hkd hnl htg huf idr ils inr isk jmd jpy kes kgs khr kmf krw kyd kzt lak ' +
  'lkr lrd lsl mad mdl mga mkd mnt mop mur mvr mwk mxn myr mzn nad ngn nio nok npr nzd pab pen pgk php pkr pln pyg qar ron rsd ' +
  'rwf sar sbd scr sek sgd shp sos srd szl thb tjs top try ttd twd tzs uah ugx usd uyu uzs vnd vuv wst xaf xcd xcg xof xpf yer zar zmw'
).split(' ') as [string, ...string[]];

/**
 * Feature flags, all default false: the spec's two, then those SDK 0.47 sends with every update (it fills in its
 * defaults) and those the 2026-04 document adds. On Polar most are staff-only; on a self-hosted Till the operator
 * is the staff, so all are stored as given.
 */
export const FEATURE_FLAGS = [
  'issue_funding_enabled',
  'usage_based_billing_enabled',
  'seat_based_pricing_enabled',
  'wallets_enabled',
  'member_model_enabled',
  'tinybird_read',
  'tinybird_compare',
  'checkout_localization_enabled',
  'reset_proration_behavior_enabled',
  'off_session_charges_enabled',
  'meter_cycling_enabled',
  'slack_benefit_enabled',
  'preview_access_enabled',
  'disputes_enabled',
  'sso_enabled',
  'dispute_auto_accept_enabled',
  'compass_enabled',
  'merchant_migration_enabled',
] as const;

export const NOTIFICATION_KEYS = [
  'new_order',
  'new_subscription',
  'chargeback_prevention',
  'subscription_renewal',
] as const;
export const CUSTOMER_EMAIL_KEYS = [
  'order_confirmation',
  'payment_method_expiration_reminder',
  'subscription_cancellation',
  'subscription_confirmation',
  'subscription_cycled',
  'subscription_cycled_after_trial',
  'subscription_past_due',
  'subscription_paused',
  'subscription_resumed',
  'subscription_renewal_reminder',
  'subscription_revoked',
  'subscription_trial_conversion_reminder',
  'subscription_uncanceled',
  'subscription_updated',
] as const;

const MAX_URL = 2083;
/** http(s) only: these URLs end up as links and images on hosted checkout and portal pages. */
const webUrl = z.url({ protocol: /^https?$/, message: 'Input should be a valid http or https URL' }).max(MAX_URL);

function flags<K extends string, S extends z.ZodType>(keys: readonly K[], schema: S): Record<K, S> {
  return Object.fromEntries(keys.map((key) => [key, schema])) as Record<K, S>;
}

// ---- outputs -------------------------------------------------------------------------------------------------

export const socialLinkSchema = z
  .object({ platform: z.enum(SOCIAL_PLATFORMS), url: z.string() })
  .meta({ id: 'OrganizationSocialLink' });

export const featureSettingsSchema = z
  .object({ ...flags(FEATURE_FLAGS, z.boolean()), overview_metrics: z.array(z.string()).nullable() })
  .meta({ id: 'OrganizationFeatureSettings' });

export const subscriptionSettingsSchema = z
  .object({
    allow_multiple_subscriptions: z.boolean(),
    proration_behavior: z.enum(PRORATION_BEHAVIORS),
    benefit_revocation_grace_period: z.number().int(),
    prevent_trial_abuse: z.boolean(),
    allow_customer_updates: z.boolean(),
  })
  .meta({ id: 'OrganizationSubscriptionSettings' });

export const notificationSettingsSchema = z
  .object(flags(NOTIFICATION_KEYS, z.boolean()))
  .meta({ id: 'OrganizationNotificationSettings' });
export const customerEmailSettingsSchema = z
  .object(flags(CUSTOMER_EMAIL_KEYS, z.boolean()))
  .meta({ id: 'OrganizationCustomerEmailSettings' });

export const customerPortalSettingsSchema = z
  .object({
    usage: z.object({ show: z.boolean() }),
    subscription: z.object({ update_seats: z.boolean(), update_plan: z.boolean(), pause: z.boolean() }),
    customer: z.object({ allow_email_change: z.boolean() }),
  })
  .meta({ id: 'OrganizationCustomerPortalSettings' });

export const capabilitiesSchema = z
  .object(
    flags(
      ['checkout_payments', 'subscription_renewals', 'payouts', 'refunds', 'api_access', 'dashboard_access'] as const,
      z.boolean(),
    ),
  )
  .meta({ id: 'OrganizationCapabilities' });

/** What both the merchant (Organization) and its customers (CustomerOrganization) see of an organization first. */
export const organizationProfileFields = {
  created_at: datetime,
  modified_at: datetime.nullable(),
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  avatar_url: z.string().nullable(),
  proration_behavior: z.enum(PRORATION_BEHAVIORS),
  allow_customer_updates: z.boolean(),
};

export const organizationSchema = z
  .object({
    ...organizationProfileFields,
    email: z.string().nullable(),
    website: z.string().nullable(),
    socials: z.array(socialLinkSchema),
    status: z.enum(ORGANIZATION_STATUSES),
    details_submitted_at: datetime.nullable(),
    onboarding_resubmission_requested_at: datetime.nullable(),
    sso_enforced: z.boolean(),
    default_presentment_currency: z.string(),
    default_tax_behavior: z.enum(TAX_BEHAVIORS),
    feature_settings: featureSettingsSchema.nullable(),
    subscription_settings: subscriptionSettingsSchema,
    notification_settings: notificationSettingsSchema,
    customer_email_settings: customerEmailSettingsSchema,
    customer_portal_settings: customerPortalSettingsSchema,
    dispute_settings: z.object({ auto_accept_below_amount: z.number().int().nullable() }),
    embed_hosts: z.array(z.string()),
    embed_hosts_enforced: z.boolean(),
    country: z.string().nullable(),
    account_id: z.string().nullable(),
    payout_account_id: z.string().nullable(),
    capabilities: capabilitiesSchema,
  })
  .meta({ id: 'Organization' });

export const organizationListSchema = listResource(organizationSchema, 'ListResource_Organization_');

export type OrganizationWire = z.infer<typeof organizationSchema>;
export type FeatureSettings = z.infer<typeof featureSettingsSchema>;
export type SubscriptionSettings = z.infer<typeof subscriptionSettingsSchema>;
export type CustomerPortalSettings = z.infer<typeof customerPortalSettingsSchema>;

// ---- inputs --------------------------------------------------------------------------------------------------

const socialLinkInput = z.strictObject({ platform: z.enum(SOCIAL_PLATFORMS), url: webUrl });

const featureSettingsInput = z
  .strictObject({
    ...flags(FEATURE_FLAGS, z.boolean().optional()),
    overview_metrics: z.array(z.string().min(1).max(64)).max(50).nullable().optional(),
  })
  .meta({ id: 'OrganizationFeatureSettingsUpdate' });

// Partial, unlike Polar's all-required object: what is left out keeps its current value.
const subscriptionSettingsInput = z.strictObject({
  allow_multiple_subscriptions: z.boolean().optional(),
  proration_behavior: z.enum(PRORATION_BEHAVIORS).optional(),
  benefit_revocation_grace_period: z.number().int().min(0).max(3650).optional(),
  prevent_trial_abuse: z.boolean().optional(),
  allow_customer_updates: z.boolean().optional(),
});

const customerPortalSettingsInput = z.strictObject({
  usage: z.strictObject({ show: z.boolean().optional() }).optional(),
  subscription: z
    .strictObject({
      update_seats: z.boolean().optional(),
      update_plan: z.boolean().optional(),
      pause: z.boolean().optional(),
    })
    .optional(),
  customer: z.strictObject({ allow_email_change: z.boolean().optional() }).optional(),
});

const shortText = z.string().max(5000).nullable().optional();
const labels = z.array(z.string().max(255)).max(50).optional();
const amount = z.number().int().min(0).nullable().optional();

export const detailsInput = z
  .strictObject({
    about: shortText,
    product_description: shortText,
    selling_categories: labels,
    pricing_models: labels,
    intended_use: shortText,
    customer_acquisition: labels,
    future_annual_revenue: amount,
    switching: z.boolean().optional(),
    switching_from: z.enum(['paddle', 'lemon_squeezy', 'gumroad', 'stripe', 'other']).nullable().optional(),
    previous_annual_revenue: amount,
  })
  .meta({ id: 'OrganizationDetails' });

/** Fields Till does not implement: their "off" value is accepted (SDKs and forms send it), anything else is a 422. */
const unsupported = {
  dispute_settings: z
    .strictObject({ auto_accept_below_amount: z.number().int().min(1).max(10000).nullable().optional() })
    .refine((value) => value.auto_accept_below_amount == null, {
      message: 'Till does not handle disputes, so it cannot auto-accept them',
    })
    .nullable()
    .optional(),
  embed_hosts: z
    .array(z.string().max(255))
    .max(100)
    .refine((hosts) => hosts.length === 0, {
      message: 'Till does not restrict checkout embedding by host; leave embed_hosts empty',
    })
    .nullable()
    .optional(),
  sso_enforced: z
    .boolean()
    .refine((value) => value === false, { message: 'Till has no SSO connections to enforce' })
    .nullable()
    .optional(),
};

const settingsFields = {
  avatar_url: webUrl.nullable().optional(),
  email: z.email({ message: 'Input should be a valid email address' }).max(254).nullable().optional(),
  website: webUrl.nullable().optional(),
  socials: z.array(socialLinkInput).max(20).nullable().optional(),
  details: detailsInput.nullable().optional(),
  country: z.enum(COUNTRIES).nullable().optional(),
  feature_settings: featureSettingsInput.nullable().optional(),
  subscription_settings: subscriptionSettingsInput.nullable().optional(),
  notification_settings: z.strictObject(flags(NOTIFICATION_KEYS, z.boolean().optional())).nullable().optional(),
  customer_email_settings: z.strictObject(flags(CUSTOMER_EMAIL_KEYS, z.boolean().optional())).nullable().optional(),
  customer_portal_settings: customerPortalSettingsInput.nullable().optional(),
  default_presentment_currency: z.enum(PRESENTMENT_CURRENCIES).nullable().optional(),
  default_tax_behavior: z.enum(TAX_BEHAVIORS).nullable().optional(),
};

const organizationName = z.string().trim().min(3).max(255);

export const organizationUpdateSchema = z
  .strictObject({ name: organizationName.nullable().optional(), ...settingsFields, ...unsupported })
  .meta({ id: 'OrganizationUpdate' });

export const organizationCreateSchema = z
  .strictObject({
    name: organizationName,
    slug: z
      .string()
      .min(3)
      .max(64)
      .regex(/^[a-z0-9]+(?:[-_][a-z0-9]+)*$/, {
        message: 'Slug may contain lowercase letters, digits, and single - or _ between them',
      }),
    legal_entity: z
      .unknown()
      .refine((value) => value == null, {
        message: 'Till does no KYC, so it takes no legal entity; use details for business details',
      })
      .optional(),
    ...settingsFields,
  })
  .meta({ id: 'OrganizationCreate' });

export type OrganizationUpdateInput = z.infer<typeof organizationUpdateSchema>;
export type OrganizationSettingsInput = Omit<OrganizationUpdateInput, 'name' | keyof typeof unsupported>;
export type OrganizationCreateInput = z.infer<typeof organizationCreateSchema>;
