import type { WebhookDeliveryWire, WebhookEndpointWire } from '../../../core/webhooks/schemas.js';
import { call, resolveOrg, type Target } from '../../context.js';
import { CliError } from '../../errors.js';
import type { Page } from '../../pages.js';

// The webhooks dashboard's data layer: everything that talks to the daemon (over /v1, as `till webhooks` does), and
// nothing that renders. The screen takes a WebhooksData, so tests can bind one to a test daemon and drive the keys.

/** The most the delivery log hands out in one page; the screen and the health figures use this recent window. */
export const DELIVERY_LIMIT = 100;

/** What the screen needs of an endpoint: the signing secret is left behind, since nothing here shows or uses it. */
export type EndpointSummary = Pick<
  WebhookEndpointWire,
  'id' | 'url' | 'name' | 'enabled' | 'events' | 'organization_id'
>;

export interface EndpointHealth {
  endpoint: EndpointSummary;
  /** Attempts to this endpoint among the recent deliveries loaded, and how many of them got a 2xx. */
  attempts: number;
  succeeded: number;
  /** Its newest attempt, or null when none is among the recent deliveries. */
  last: WebhookDeliveryWire | null;
}

export interface Snapshot {
  /** What the screen covers: an organization's name, or every organization the caller can see. */
  scope: string;
  endpoints: EndpointHealth[];
  /** Every attempt, newest first, at most DELIVERY_LIMIT. */
  deliveries: WebhookDeliveryWire[];
  loadedAt: Date;
}

export interface WebhooksData {
  load(): Promise<Snapshot>;
  /** Sends the event again with the same webhook-id (the daemon queues it; its worker delivers). */
  redeliver(eventId: string): Promise<void>;
}

export interface Scope {
  /** --org: an organization id or slug, resolved once like the other org-scoped commands. */
  org?: string;
  /** --endpoint: only this endpoint and its deliveries. */
  endpoint?: string;
}

/** Per endpoint, how its recent deliveries went; deliveries come newest first, so the first one seen is the last. */
export function endpointHealth(endpoints: EndpointSummary[], deliveries: WebhookDeliveryWire[]): EndpointHealth[] {
  const health = new Map(
    endpoints.map((endpoint) => [endpoint.id, { endpoint, attempts: 0, succeeded: 0, last: null } as EndpointHealth]),
  );
  for (const delivery of deliveries) {
    const entry = health.get(delivery.webhook_endpoint_id);
    if (!entry) continue;
    entry.attempts += 1;
    if (delivery.succeeded) entry.succeeded += 1;
    entry.last ??= delivery;
  }
  return [...health.values()];
}

const summary = ({ id, url, name, enabled, events, organization_id }: WebhookEndpointWire): EndpointSummary => ({
  id,
  url,
  name,
  enabled,
  events,
  organization_id,
});

export function createHttpData(target: Target, scope: Scope = {}): WebhooksData {
  let organization: { id: string; name: string } | undefined;

  return {
    async load() {
      if (scope.org !== undefined && !organization) organization = await resolveOrg(target, scope.org);
      const endpointQuery = new URLSearchParams({ limit: '100' });
      if (organization) endpointQuery.set('organization_id', organization.id);
      const listed = (
        await call<Page<WebhookEndpointWire>>(target, 'GET', `/v1/webhooks/endpoints?${endpointQuery}`)
      ).items.map(summary);
      const endpoints =
        scope.endpoint === undefined ? listed : listed.filter((endpoint) => endpoint.id === scope.endpoint);
      if (scope.endpoint !== undefined && endpoints.length === 0) {
        throw new CliError(
          `no webhook endpoint "${scope.endpoint}" ${organization ? `in ${organization.name}` : 'among yours'} (see \`till webhooks endpoints list\`)`,
        );
      }

      // The delivery log has no organization filter, so a narrowed screen asks for its endpoints' ids instead; an
      // organization without endpoints has no deliveries, and asking with no ids would mean "all of them".
      const narrowed = organization !== undefined || scope.endpoint !== undefined;
      const deliveryQuery = new URLSearchParams({ limit: String(DELIVERY_LIMIT) });
      if (narrowed) for (const endpoint of endpoints) deliveryQuery.append('endpoint_id', endpoint.id);
      const deliveries =
        narrowed && endpoints.length === 0
          ? []
          : (await call<Page<WebhookDeliveryWire>>(target, 'GET', `/v1/webhooks/deliveries?${deliveryQuery}`)).items;

      return {
        scope: organization ? organization.name : 'every organization you can see',
        endpoints: endpointHealth(endpoints, deliveries),
        deliveries,
        loadedAt: new Date(),
      };
    },
    async redeliver(eventId) {
      await call(target, 'POST', `/v1/webhooks/events/${encodeURIComponent(eventId)}/redeliver`);
    },
  };
}
