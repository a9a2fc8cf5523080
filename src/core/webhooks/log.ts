import type { Clock } from '../kernel/clock.js';
import type { Db } from '../database/index.js';
import { orWhereContains } from '../database/index.js';
import { badRequest, resourceNotFound } from '../polar-api/errors.js';
import type { Page } from '../kernel/pagination.js';
import { paginate } from '../kernel/pagination.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { authorize, organizationFilter } from '../polar-api/actor.js';
import { iso, isoOrNull } from '../polar-api/schemas.js';
import { endpointsRepository } from './endpoints-repository.js';
import { deliveryFromRow, eventFromRow, eventsRepository, type WebhookEventRecord } from './events-repository.js';
import type { DeliveryListQuery, WebhookDeliveryWire, WebhookEventWire } from './schemas.js';

export function eventWire(event: WebhookEventRecord): WebhookEventWire {
  return {
    created_at: iso(event.createdAt),
    modified_at: isoOrNull(event.modifiedAt),
    id: event.id,
    last_http_code: event.lastHttpCode,
    succeeded: event.succeeded,
    skipped: event.status === 'skipped',
    payload: event.payload,
    type: event.type as WebhookEventWire['type'],
    is_archived: event.payload === null,
    webhook_endpoint_id: event.endpointId,
    status: event.status,
    attempts: event.attempts,
    next_attempt_at: event.status === 'pending' ? isoOrNull(event.nextAttemptAt) : null,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EVENT_COLUMNS = [
  'id',
  'organization_id',
  'endpoint_id',
  'outbox_event_id',
  'seq',
  'type',
  'coalesce_key',
  'payload',
  'status',
  'attempts',
  'next_attempt_at',
  'claimed_until',
  'last_http_code',
  'succeeded',
  'created_at',
  'modified_at',
];
const DELIVERY_COLUMNS = [
  'id',
  'organization_id',
  'endpoint_id',
  'webhook_event_id',
  'attempt',
  'succeeded',
  'http_code',
  'response',
  'duration_ms',
  'created_at',
];

/** The delivery log (every attempt, Polar's WebhookDelivery with what it lacks) and manual redelivery. */
export function createDeliveryLog(deps: { db: Db; clock: Clock; onRequeued: () => void }) {
  const { db, clock } = deps;

  return {
    async list(actor: MerchantActor, query: DeliveryListQuery): Promise<Page<WebhookDeliveryWire>> {
      const organizations = organizationFilter(actor, undefined);
      const q = db('webhook_deliveries as d')
        .join('webhook_events as e', 'e.id', 'd.webhook_event_id')
        .select([
          ...DELIVERY_COLUMNS.map((column) => `d.${column}`),
          ...EVENT_COLUMNS.map((column) => `e.${column} as e_${column}`),
        ])
        .whereIn('d.organization_id', organizations);
      if (query.endpoint_id) q.whereIn('d.endpoint_id', query.endpoint_id);
      if (query.event_type) q.whereIn('e.type', query.event_type);
      if (query.succeeded !== undefined) q.where('d.succeeded', query.succeeded);
      if (query.start_timestamp) q.where('d.created_at', '>=', new Date(query.start_timestamp));
      if (query.end_timestamp) q.where('d.created_at', '<=', new Date(query.end_timestamp));
      if (query.http_code_class) {
        const low = Number(query.http_code_class[0]) * 100;
        q.where('d.http_code', '>=', low).where('d.http_code', '<', low + 100);
      }
      const text = query.query;
      if (text) {
        const byId = UUID.test(text) ? text.toLowerCase() : null;
        q.where((search) => {
          orWhereContains(search, ['d.response', 'e.type'], text);
          if (byId) search.orWhere('e.id', byId);
        });
      }
      const page = await paginate<Record<string, unknown>>(
        q,
        { page: query.page, limit: query.limit, sorting: ['-created_at'] },
        { created_at: 'd.created_at' },
        'd.id',
      );
      return {
        items: page.rows.map((row) => {
          const delivery = deliveryFromRow(row);
          return {
            created_at: iso(delivery.createdAt),
            modified_at: null,
            id: delivery.id,
            succeeded: delivery.succeeded,
            http_code: delivery.httpCode,
            response: delivery.response,
            webhook_event: eventWire(eventFromRow(row, 'e_')),
            webhook_endpoint_id: delivery.endpointId,
            attempt: delivery.attempt,
            duration_ms: delivery.durationMs,
          };
        }),
        pagination: page.pagination,
      };
    },

    async getEvent(actor: MerchantActor, id: string): Promise<WebhookEventWire> {
      const event = await eventsRepository(db).findById(id);
      if (!event) throw resourceNotFound();
      authorize(actor, event.organizationId, 'read');
      return eventWire(event);
    },

    /** Sends the event again, with the same webhook-id, whether or not it already succeeded. */
    async redeliver(actor: MerchantActor, id: string): Promise<void> {
      const events = eventsRepository(db);
      const event = await events.findById(id);
      if (!event) throw resourceNotFound();
      authorize(actor, event.organizationId, 'write');
      if (event.payload === null)
        throw resourceNotFound('The webhook event is archived; its payload is no longer kept.');
      const endpoint = await endpointsRepository(db).findById(event.endpointId);
      if (!endpoint?.enabled) throw badRequest('The webhook endpoint is disabled; enable it before redelivering.');
      await events.requeue(event.id, clock.now());
      deps.onRequeued();
    },
  };
}
