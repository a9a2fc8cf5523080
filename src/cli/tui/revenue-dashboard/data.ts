import type { z } from 'zod';
import type { CustomerStateWire, customerSessionSchema } from '../../../core/customers/schemas.js';
import type { OrderWire } from '../../../core/orders/schemas.js';
import type { SubscriptionWire } from '../../../core/subscriptions/schemas.js';
import { actingOrg, call, type Target } from '../../context.js';
import {
  daysBefore,
  fetchLimits,
  fetchMetrics,
  metricsOrganization,
  type Interval,
  type MetricsLimits,
  type MetricsResponse,
} from '../../metrics.js';
import type { Page } from '../../pages.js';

// The revenue dashboard's data layer: everything that talks to the daemon (over /v1, as `till metrics`, `till
// orders` and `till subscriptions` do), and nothing that renders. Tests hand the screen their own RevenueData.

/** How many of the newest orders the screen follows. */
export const ORDER_LIMIT = 10;

/** The ranges the keys 1–4 choose: the metrics cover this many calendar days up to today. */
export const RANGES = [
  { id: '7d', days: 7 },
  { id: '30d', days: 30 },
  { id: '90d', days: 90 },
  { id: '1y', days: 365 },
] as const;
export type RangeId = (typeof RANGES)[number]['id'];

export interface Window {
  range: RangeId;
  interval: Interval;
}

export interface Snapshot {
  /** The organization the figures are about. */
  scope: string;
  currency: string;
  /** The window the metrics were asked for (the keys may have moved on while they loaded). */
  window: Window;
  metrics: MetricsResponse;
  limits: MetricsLimits;
  /** The newest orders first, at most ORDER_LIMIT. */
  orders: OrderWire[];
  pastDue: SubscriptionWire[];
  loadedAt: Date;
}

/** What "open the customer" shows: who they are, what they have, and a portal link to send them. */
export interface CustomerDetail {
  id: string;
  label: string;
  activeSubscriptions: number;
  grantedBenefits: number;
  portalUrl: string;
  portalExpiresAt: string;
}

export interface RevenueData {
  load(window: Window): Promise<Snapshot>;
  /** Charges a past-due subscription now (the dunning engine's POST …/retry-payment); says what the daemon answered. */
  retryPayment(subscriptionId: string): Promise<string>;
  /** Cancels at the period end, as `till subscriptions cancel` does; says what changed. */
  cancel(subscriptionId: string): Promise<string>;
  openCustomer(customerId: string): Promise<CustomerDetail>;
}

export function rangeDays(range: RangeId): number {
  return RANGES.find((candidate) => candidate.id === range)!.days;
}

/** The daemon's answer to a retry, in a line: the subscription's status when it sends one back. */
export function retryOutcome(subscriptionId: string, answer: unknown): string {
  const status = (answer as { status?: unknown } | null)?.status;
  return typeof status === 'string'
    ? `Charge retried for ${subscriptionId}: now ${status}`
    : `Charge retried for ${subscriptionId}`;
}

export function createHttpData(target: Target, org?: string): RevenueData {
  let scope: { id?: string; name: string; currency: string; limits: MetricsLimits } | undefined;

  return {
    async load(window) {
      if (!scope) {
        const organization = await actingOrg(target, { org, json: true });
        const [settings, limits] = await Promise.all([
          metricsOrganization(target, organization?.id),
          fetchLimits(target, organization?.id),
        ]);
        scope = { id: organization?.id, name: settings.name, currency: settings.default_presentment_currency, limits };
      }
      const now = new Date();
      const filter = (query: Record<string, string>) => {
        const search = new URLSearchParams(query);
        if (scope?.id) search.set('organization_id', scope.id);
        return search;
      };
      const [metrics, orders, pastDue] = await Promise.all([
        fetchMetrics(target, {
          startDate: daysBefore(now, rangeDays(window.range) - 1),
          endDate: daysBefore(now, 0),
          interval: window.interval,
          organizationId: scope.id,
        }),
        call<Page<OrderWire>>(target, 'GET', `/v1/orders/?${filter({ limit: String(ORDER_LIMIT) })}`),
        call<Page<SubscriptionWire>>(
          target,
          'GET',
          `/v1/subscriptions/?${filter({ status: 'past_due', limit: '100' })}`,
        ),
      ]);
      return {
        scope: scope.name,
        currency: scope.currency,
        window,
        metrics,
        limits: scope.limits,
        orders: orders.items,
        pastDue: pastDue.items,
        loadedAt: now,
      };
    },
    async retryPayment(subscriptionId) {
      const answer = await call<unknown>(
        target,
        'POST',
        `/v1/subscriptions/${encodeURIComponent(subscriptionId)}/retry-payment`,
      );
      return retryOutcome(subscriptionId, answer);
    },
    async cancel(subscriptionId) {
      const subscription = await call<SubscriptionWire>(
        target,
        'PATCH',
        `/v1/subscriptions/${encodeURIComponent(subscriptionId)}`,
        { body: { cancel_at_period_end: true } },
      );
      return `Subscription ${subscription.id} will end on ${subscription.ends_at ?? subscription.current_period_end}`;
    },
    async openCustomer(customerId) {
      const id = encodeURIComponent(customerId);
      const [state, session] = await Promise.all([
        call<CustomerStateWire>(target, 'GET', `/v1/customers/${id}/state`),
        call<z.output<typeof customerSessionSchema>>(target, 'POST', '/v1/customer-sessions/', {
          body: { customer_id: customerId },
        }),
      ]);
      return {
        id: state.id,
        label: state.email ?? state.name ?? state.id,
        activeSubscriptions: state.active_subscriptions.length,
        grantedBenefits: state.granted_benefits.length,
        portalUrl: session.customer_portal_url,
        portalExpiresAt: session.expires_at,
      };
    },
  };
}
