import type { CoreContext } from '../../../core/context.js';
import type { CustomerActor } from '../../../core/customers/sessions.js';
import { customerOrderListQuery, customerSubscriptionListQuery } from '../../../core/customer-portal/schemas.js';
import { customerBenefitGrantListQuery } from '../../../core/benefit-grants/schemas.js';
import { customerLicenseKeyListQuery } from '../../../core/license-keys/schemas.js';
import { portalMeterListQuery } from '../../../core/meters/schemas.js';
import { paymentMethodListQuery } from '../../../core/payment-methods/schemas.js';
import { TEST_CARDS } from '../../../core/payments/test-cards.js';
import { formatMoney } from '../checkout/money.js';
import type { PortalBenefit, PortalDownload, PortalLicenseKey, PortalProps, PortalSubscription } from './model.js';
import { downloadsOf } from './downloads.js';

/** What the portal shows at most of each list; a customer with more sees the newest. */
const LIST_LIMIT = 100;
const day = (iso: string | null) => (iso ? iso.slice(0, 10) : null);
const INTERVAL: Record<string, string> = { day: 'day', week: 'week', month: 'month', year: 'year' };
const LIVE = new Set(['active', 'trialing', 'past_due']);

function every(interval: string, count: number): string {
  const unit = INTERVAL[interval] ?? interval;
  return count === 1 ? unit : `${count} ${unit}s`;
}

export interface PortalContext {
  core: CoreContext;
  actor: CustomerActor;
  organization: { id: string; name: string; slug: string };
  /** The session token, for the GitHub/Discord connect links (they leave the portal, so the cookie is not sent). */
  token: string;
  /** The portal's own absolute URL, where a connect flow returns. */
  portalUrl: string;
}

async function subscriptionsOf(p: PortalContext): Promise<PortalSubscription[]> {
  const page = await p.core.customerPortal.listSubscriptions(
    p.actor,
    customerSubscriptionListQuery.parse({ limit: LIST_LIMIT }),
  );
  return page.items.map((subscription) => {
    const live = LIVE.has(subscription.status);
    const end = day(subscription.current_period_end);
    const periodText = !live
      ? `Ended ${day(subscription.ended_at) ?? end ?? ''}`.trim()
      : subscription.cancel_at_period_end
        ? `Ends ${end}`
        : subscription.status === 'trialing'
          ? `Trial ends ${day(subscription.trial_end) ?? end}`
          : `Renews ${end}`;
    return {
      id: subscription.id,
      product: subscription.product.name,
      productId: subscription.product_id,
      price: `${formatMoney(subscription.amount, subscription.currency)} / ${every(subscription.recurring_interval, subscription.recurring_interval_count)}`,
      status: subscription.status,
      periodText,
      cancelAtPeriodEnd: subscription.cancel_at_period_end,
      live,
    };
  });
}

async function licenseKeysOf(p: PortalContext, benefits: Map<string, string>): Promise<PortalLicenseKey[]> {
  const page = await p.core.licenseKeys.listForCustomer(
    p.actor,
    customerLicenseKeyListQuery.parse({ limit: LIST_LIMIT }),
  );
  return Promise.all(
    page.items.map(async (key) => {
      const full = await p.core.licenseKeys.getForCustomer(p.actor, key.id);
      return {
        id: key.id,
        key: key.key,
        benefit: benefits.get(key.benefit_id) ?? 'License key',
        status: key.status,
        usage: key.limit_usage !== null ? `${key.usage} of ${key.limit_usage} uses` : null,
        activationsText:
          key.limit_activations !== null ? `${full.activations.length} of ${key.limit_activations} activations` : null,
        expires: day(key.expires_at),
        activations: full.activations.map((activation) => ({
          id: activation.id,
          label: activation.label,
          date: day(activation.created_at) ?? '',
        })),
      };
    }),
  );
}

function connectUrl(p: PortalContext, platform: 'github' | 'discord'): string {
  const url = new URL('/v1/customer-portal/oauth-accounts/authorize', p.core.config.baseUrl);
  url.searchParams.set('platform', platform);
  url.searchParams.set('customer_session_token', p.token);
  url.searchParams.set('return_to', p.portalUrl);
  return url.toString();
}

async function benefitsOf(p: PortalContext): Promise<{ benefits: PortalBenefit[]; names: Map<string, string> }> {
  const page = await p.core.benefitGrants.listForCustomer(
    p.actor,
    customerBenefitGrantListQuery.parse({ limit: LIST_LIMIT }),
  );
  const names = new Map<string, string>();
  const benefits: PortalBenefit[] = [];
  const seen = new Set<string>();
  for (const grant of page.items) {
    names.set(grant.benefit_id, grant.benefit.description);
    // One line per benefit: a customer holding it through two purchases has it once.
    if (grant.is_revoked || seen.has(grant.benefit_id)) continue;
    seen.add(grant.benefit_id);
    const type = grant.benefit.type;
    const waiting = !grant.is_granted && (type === 'github_repository' || type === 'discord');
    const note = type === 'custom' ? grant.benefit.properties.note : null;
    benefits.push({
      id: grant.id,
      type,
      description: grant.benefit.description,
      note: typeof note === 'string' && note ? note : null,
      connect: waiting
        ? {
            platform: type === 'discord' ? 'discord' : 'github',
            url: connectUrl(p, type === 'discord' ? 'discord' : 'github'),
          }
        : null,
      problem: grant.is_granted ? null : (grant.error?.message ?? null),
    });
  }
  return { benefits, names };
}

export async function portalProps(
  p: PortalContext,
  flash: { notice?: string | null; error?: string | null } = {},
): Promise<PortalProps> {
  const { core, actor } = p;
  const [orders, subscriptions, plans, cards, me, granted, meters, downloads] = await Promise.all([
    core.customerPortal.listOrders(actor, customerOrderListQuery.parse({ limit: LIST_LIMIT })),
    subscriptionsOf(p),
    core.hostedPortal.planChoices(actor),
    core.paymentMethods.listOwn(actor, paymentMethodListQuery.parse({ limit: LIST_LIMIT })),
    core.customerSessions.portalCustomer(actor),
    benefitsOf(p),
    core.meters.portalList(actor, portalMeterListQuery.parse({ limit: LIST_LIMIT })),
    downloadsOf(core, actor),
  ]);
  const licenseKeys = await licenseKeysOf(p, granted.names);
  return {
    base: `/portal/${encodeURIComponent(p.organization.slug)}`,
    organization: p.organization.name,
    customer: { name: actor.customer.name, email: actor.customer.email },
    notice: flash.notice ?? null,
    error: flash.error ?? null,
    orders: orders.items.map((order) => ({
      id: order.id,
      date: day(order.created_at) ?? '',
      description: order.description ?? order.product?.name ?? 'Order',
      total: formatMoney(order.total_amount, order.currency),
      status: order.status,
      hasReceipt: order.paid,
      invoiceGenerated: order.is_invoice_generated,
    })),
    subscriptions,
    plans: plans.map((product) => {
      const price = product.prices[0];
      const amount = price && 'price_amount' in price ? formatMoney(price.price_amount, price.price_currency) : '';
      const interval = product.recurring_interval
        ? ` / ${every(product.recurring_interval, product.recurring_interval_count ?? 1)}`
        : '';
      return { id: product.id, label: amount ? `${product.name} — ${amount}${interval}` : product.name };
    }),
    cards: cards.items.map((card) => ({
      id: card.id,
      label: `${card.method_metadata.brand} •••• ${card.method_metadata.last4} (expires ${card.method_metadata.exp_month}/${card.method_metadata.exp_year})`,
      isDefault: card.id === me.default_payment_method_id,
    })),
    testCards: TEST_CARDS.filter((card) => card.token === 'tok_visa' || card.token === 'tok_mastercard').map(
      (card) => ({
        number: card.number,
        note: card.token,
      }),
    ),
    benefits: granted.benefits,
    licenseKeys,
    downloads: downloads satisfies PortalDownload[] | null,
    meters: meters.items.map((meter) => ({
      id: meter.id,
      name: meter.meter.name,
      consumed: String(meter.consumed_units),
      credited: String(meter.credited_units),
      balance: String(meter.balance),
    })),
  };
}
