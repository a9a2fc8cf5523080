import type { CoreContext } from '../../../core/context.js';
import {
  eventListQuery,
  eventListSchema,
  eventSchema,
  eventsIngestResponseSchema,
  eventsIngestSchema,
  fastEventsIngest,
  eventNameListQuery,
  eventNameListSchema,
  eventTypeListQuery,
  eventTypeListSchema,
  eventTypeUpdatedSchema,
  eventTypeUpdateSchema,
} from '../../../core/events/schemas.js';
import { metadataQuery } from '../../../core/polar-api/metadata-query.js';
import { idParams } from '../../../core/polar-api/schemas.js';
import { readScopes, writeScopes } from '../../../core/polar-api/scopes.js';
import type { V1Api } from './operation.js';

/** Usage events: ingestion, the event list and event types (Polar's events and event-types). */
export function registerEventsRoutes(api: V1Api, core: CoreContext): void {
  const service = core.events;
  const read = readScopes('events');

  api.op(
    {
      method: 'post',
      path: '/v1/events/ingest',
      operationId: 'events:ingest',
      tag: 'events',
      summary: 'Ingest up to 1,000 events (external_id deduplicated per organization)',
      scopes: writeScopes('events'),
      body: eventsIngestSchema,
      fastBody: fastEventsIngest,
      response: eventsIngestResponseSchema,
    },
    ({ actor, body }) => service.ingest(actor, body.events),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/events/',
      operationId: 'events:list',
      tag: 'events',
      summary:
        'List events (filters: customer, external customer, name, source, meter, time range, metadata, filter, parent, depth)',
      scopes: read,
      query: eventListQuery,
      response: eventListSchema,
    },
    ({ actor, query, ctx }) => service.list(actor, query, metadataQuery(ctx.query)),
  );
  // Before `/v1/events/:id`, which would take `names` for an id.
  api.op(
    {
      method: 'get',
      path: '/v1/events/names',
      operationId: 'events:list_names',
      tag: 'events',
      summary: 'List event names with their occurrences and first and last timestamps (filters: customer, source)',
      scopes: read,
      query: eventNameListQuery,
      response: eventNameListSchema,
    },
    ({ actor, query }) => service.listNames(actor, query),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/events/:id',
      operationId: 'events:get',
      tag: 'events',
      summary: 'Get an event',
      scopes: read,
      params: idParams,
      response: eventSchema,
    },
    ({ actor, params }) => service.get(actor, params.id),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/event-types/',
      operationId: 'event-types:list',
      tag: 'event-types',
      summary:
        'List event types with their occurrences and first and last timestamps (filters: customer, root events, parent)',
      scopes: read,
      query: eventTypeListQuery,
      response: eventTypeListSchema,
    },
    ({ actor, query }) => service.listTypes(actor, query),
  );
  api.op(
    {
      method: 'patch',
      path: '/v1/event-types/:id',
      operationId: 'event-types:update',
      tag: 'event-types',
      summary: "Update an event type's label (kept through later ingestion)",
      scopes: writeScopes('events'),
      params: idParams,
      body: eventTypeUpdateSchema,
      response: eventTypeUpdatedSchema,
    },
    ({ actor, params, body }) => service.updateType(actor, params.id, body),
  );
}
