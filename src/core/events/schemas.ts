import { z } from 'zod';
import { customerSchema } from '../customers/schemas.js';
import { pageQuery, repeated, sortingQuery, uuidFilter } from '../kernel/pagination.js';
import { datetime, listResource, organizationIdInput } from '../polar-api/schemas.js';
import { costMetadataInput, llmMetadata, validStructured } from './structured-metadata.js';

/** The /v1 wire shapes of events and event types (Polar's schemas; SDK 0.47 parses them strictly). */

export const MAX_EVENTS_PER_INGEST = 1000;

const metadataValue = z.union([z.string().min(1).max(500), z.number(), z.boolean()]);

/**
 * Polar's EventMetadataInput limits: up to 50 keys of 1–40 characters; strings of 1–500 characters; `_cost` and
 * `_llm` structured (structured-metadata.ts).
 */
export const eventMetadataInput = z
  .object({ _cost: costMetadataInput.optional(), _llm: llmMetadata.optional() })
  .catchall(metadataValue)
  .superRefine((value, ctx) => {
    for (const key of Object.keys(value))
      if (key.length < 1 || key.length > 40)
        ctx.addIssue({ code: 'custom', path: [key], message: 'A metadata key has 1 to 40 characters.', input: key });
  })
  .refine((value) => Object.keys(value).length <= 50, { message: 'Metadata can have at most 50 keys' })
  .meta({ id: 'EventMetadataInput' });

/**
 * One event: Polar's EventCreateCustomer or EventCreateExternalCustomer, told apart by which customer field is
 * present (one object rather than a union, so an error points at the field, not at "no member of the union").
 */
export const eventCreateSchema = z
  .strictObject({
    timestamp: datetime.optional(),
    name: z.string().min(1).max(128),
    organization_id: organizationIdInput,
    external_id: z.string().min(1).max(256).nullable().optional(),
    parent_id: z.string().min(1).max(256).nullable().optional(),
    metadata: eventMetadataInput.optional(),
    customer_id: z.uuid({ message: 'Input should be a valid UUID' }).optional(),
    member_id: z.uuid({ message: 'Input should be a valid UUID' }).nullable().optional(),
    external_customer_id: z.string().min(1).max(256).optional(),
    external_member_id: z.string().min(1).max(256).nullable().optional(),
  })
  .superRefine((event, ctx) => {
    const both = event.customer_id !== undefined && event.external_customer_id !== undefined;
    if (both || (event.customer_id === undefined && event.external_customer_id === undefined))
      ctx.addIssue({
        code: 'custom',
        path: ['customer_id'],
        message: both
          ? 'Give either customer_id or external_customer_id, not both.'
          : 'Field required: customer_id or external_customer_id.',
      });
  })
  .meta({ id: 'EventCreate' });

export type EventCreateInput = z.output<typeof eventCreateSchema>;

export const eventsIngestSchema = z
  .strictObject({
    events: z
      .array(eventCreateSchema)
      .max(MAX_EVENTS_PER_INGEST, { message: `At most ${MAX_EVENTS_PER_INGEST} events per request.` }),
  })
  .meta({ id: 'EventsIngest' });

export const eventsIngestResponseSchema = z
  .object({ inserted: z.number().int(), duplicates: z.number().int() })
  .meta({ id: 'EventsIngestResponse' });

export type EventsIngestResponse = z.infer<typeof eventsIngestResponseSchema>;

export const EVENT_SOURCES = ['system', 'user'] as const;
export type EventSource = (typeof EVENT_SOURCES)[number];

/** Polar's `depth` on the events list: levels of descendants below the roots (or below `parent_id`), at most 5. */
export const MAX_EVENT_DEPTH = 5;

/** Query booleans arrive as text (`?root_events=true`). */
const queryBoolean = z.enum(['true', 'false']).transform((value) => value === 'true');

const eventMetadataOutput = z.record(z.string(), z.unknown());

export const eventSchema = z
  .object({
    id: z.string(),
    timestamp: datetime,
    organization_id: z.string(),
    customer_id: z.string().nullable(),
    customer: customerSchema.nullable(),
    external_customer_id: z.string().nullable(),
    member_id: z.string().nullable(),
    external_member_id: z.string().nullable(),
    child_count: z.number().int(),
    parent_id: z.string().nullable(),
    label: z.string(),
    name: z.string(),
    source: z.enum(EVENT_SOURCES),
    metadata: eventMetadataOutput,
  })
  .meta({ id: 'Event' });

export type EventWire = z.infer<typeof eventSchema>;
export const eventListSchema = listResource(eventSchema, 'ListResource_Event_');

export const eventListQuery = z.object({
  filter: z.string().max(20_000).optional(),
  start_timestamp: datetime.optional(),
  end_timestamp: datetime.optional(),
  organization_id: repeated(z.string().max(64)).optional(),
  customer_id: uuidFilter().optional(),
  external_customer_id: repeated(z.string().max(256)).optional(),
  meter_id: z.uuid({ message: 'Input should be a valid UUID' }).optional(),
  name: repeated(z.string().max(128)).optional(),
  source: repeated(z.enum(EVENT_SOURCES)).optional(),
  query: z.string().max(256).optional(),
  parent_id: z.uuid({ message: 'Input should be a valid UUID' }).optional(),
  depth: z.coerce.number().int().min(0).max(MAX_EVENT_DEPTH).optional(),
  ...pageQuery,
  sorting: sortingQuery(['timestamp'], ['-timestamp']),
});

export type EventListQuery = z.output<typeof eventListQuery>;

export const eventTypeSchema = z
  .object({
    id: z.string(),
    created_at: datetime,
    modified_at: datetime.nullable(),
    name: z.string(),
    label: z.string(),
    label_property_selector: z.string().nullable(),
    organization_id: z.string(),
    source: z.enum(EVENT_SOURCES),
    occurrences: z.number().int(),
    first_seen: datetime,
    last_seen: datetime,
  })
  .meta({ id: 'EventTypeWithStats' });

export type EventTypeWire = z.infer<typeof eventTypeSchema>;
export const eventTypeListSchema = listResource(eventTypeSchema, 'ListResource_EventTypeWithStats_');

export const eventTypeListQuery = z.object({
  organization_id: repeated(z.string().max(64)).optional(),
  customer_id: uuidFilter().optional(),
  external_customer_id: repeated(z.string().max(256)).optional(),
  query: z.string().max(256).optional(),
  root_events: queryBoolean.default(false),
  parent_id: z.uuid({ message: 'Input should be a valid UUID' }).optional(),
  source: z.enum(EVENT_SOURCES).optional(),
  ...pageQuery,
  sorting: sortingQuery(['name', 'label', 'occurrences', 'first_seen', 'last_seen'], ['-last_seen']),
});

export type EventTypeListQuery = z.output<typeof eventTypeListQuery>;

/** What `PATCH /v1/event-types/{id}` answers: the type without its counts (Polar's EventType). */
export const eventTypeUpdatedSchema = eventTypeSchema
  .pick({
    id: true,
    created_at: true,
    modified_at: true,
    name: true,
    label: true,
    label_property_selector: true,
    organization_id: true,
  })
  .meta({ id: 'EventType' });

export type EventTypeUpdatedWire = z.infer<typeof eventTypeUpdatedSchema>;

export const eventTypeUpdateSchema = z
  .object({
    label: z.string().min(1).max(128),
    label_property_selector: z.string().min(1).max(256).nullable().optional(),
  })
  .meta({ id: 'EventTypeUpdate' });

export type EventTypeUpdateInput = z.output<typeof eventTypeUpdateSchema>;

/** One event name with its counts, over the organization's events or over a customer's (Polar's EventName). */
export const eventNameSchema = z
  .object({
    name: z.string(),
    label: z.string(),
    source: z.enum(EVENT_SOURCES),
    occurrences: z.number().int(),
    first_seen: datetime,
    last_seen: datetime,
  })
  .meta({ id: 'EventName' });

export type EventNameWire = z.infer<typeof eventNameSchema>;
export const eventNameListSchema = listResource(eventNameSchema, 'ListResource_EventName_');

export const eventNameListQuery = z.object({
  organization_id: repeated(z.string().max(64)).optional(),
  customer_id: uuidFilter().optional(),
  external_customer_id: repeated(z.string().max(256)).optional(),
  source: repeated(z.enum(EVENT_SOURCES)).optional(),
  query: z.string().max(256).optional(),
  ...pageQuery,
  sorting: sortingQuery(['name', 'occurrences', 'first_seen', 'last_seen'], ['-last_seen']),
});

export type EventNameListQuery = z.output<typeof eventNameListQuery>;

// zod's z.uuid(): RFC 9562 versions 1–8 and variant 10, or the nil and max UUIDs.
const STRICT_UUID =
  /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/;
const EVENT_KEYS = new Set([
  'timestamp',
  'name',
  'organization_id',
  'external_id',
  'parent_id',
  'metadata',
  'customer_id',
  'member_id',
  'external_customer_id',
  'external_member_id',
]);

const text = (value: unknown, max: number): boolean =>
  typeof value === 'string' && value.length >= 1 && value.length <= max;
const optionalText = (value: unknown, max: number): boolean => value === undefined || text(value, max);
const nullableText = (value: unknown, max: number): boolean =>
  value === undefined || value === null || text(value, max);

function validMetadata(value: unknown): boolean {
  if (value === undefined) return true;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  let keys = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) return false;
    if (++keys > 50 || key.length < 1 || key.length > 40 || key === '__proto__') return false;
    const entry = (value as Record<string, unknown>)[key];
    if (key === '_cost' || key === '_llm') {
      if (!validStructured(key, entry)) return false;
    } else if (typeof entry === 'string' ? !text(entry, 500) : typeof entry !== 'number' && typeof entry !== 'boolean')
      return false;
  }
  return Object.getPrototypeOf(value) === Object.prototype;
}

function validEvent(event: unknown): boolean {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return false;
  if (Object.getPrototypeOf(event) !== Object.prototype) return false;
  for (const key in event) if (!EVENT_KEYS.has(key)) return false;
  const e = event as Record<string, unknown>;
  if (!text(e.name, 128)) return false;
  if (e.timestamp !== undefined && !(typeof e.timestamp === 'string' && datetime.safeParse(e.timestamp).success))
    return false;
  if (!nullableText(e.organization_id, 64) || !nullableText(e.external_id, 256) || !nullableText(e.parent_id, 256))
    return false;
  if (!nullableText(e.external_member_id, 256) || !optionalText(e.external_customer_id, 256)) return false;
  if (e.customer_id !== undefined && !(typeof e.customer_id === 'string' && STRICT_UUID.test(e.customer_id)))
    return false;
  if (
    e.member_id !== undefined &&
    e.member_id !== null &&
    !(typeof e.member_id === 'string' && STRICT_UUID.test(e.member_id))
  )
    return false;
  if ((e.customer_id === undefined) === (e.external_customer_id === undefined)) return false;
  return validMetadata(e.metadata);
}

/**
 * `eventsIngestSchema` by hand, for the common case: the body when every event is valid, else null, and the schema
 * then parses it and names every error (so a 422 reads the same either way). It accepts nothing the schema would
 * refuse, and returns the body as the schema would (no defaults, no transforms): zod's per-event cost was a tenth
 * of the daemon's main thread under load (bench/events).
 */
export function fastEventsIngest(body: unknown): z.output<typeof eventsIngestSchema> | null {
  if (typeof body !== 'object' || body === null || Object.getPrototypeOf(body) !== Object.prototype) return null;
  for (const key in body) if (key !== 'events') return null;
  const events = (body as { events?: unknown }).events;
  if (!Array.isArray(events) || events.length > MAX_EVENTS_PER_INGEST) return null;
  for (const event of events) if (!validEvent(event)) return null;
  return body as z.output<typeof eventsIngestSchema>;
}
