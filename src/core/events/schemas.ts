import { z } from 'zod';
import { customerSchema } from '../customers/schemas.js';
import { pageQuery, repeated, sortingQuery, uuidFilter } from '../kernel/pagination.js';
import { datetime, listResource, organizationIdInput } from '../polar-api/schemas.js';

/** The /v1 wire shapes of events and event types (Polar's schemas; SDK 0.47 parses them strictly). */

export const MAX_EVENTS_PER_INGEST = 1000;

/** Polar's EventMetadataInput limits: up to 50 keys of 1–40 characters; strings up to 500 characters. */
export const eventMetadataInput = z
  .record(z.string().min(1).max(40), z.union([z.string().max(500), z.number(), z.boolean()]))
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
  query: z.string().max(256).optional(),
  source: z.enum(EVENT_SOURCES).optional(),
  ...pageQuery,
  sorting: sortingQuery(['name', 'label', 'occurrences', 'first_seen', 'last_seen'], ['-last_seen']),
});
