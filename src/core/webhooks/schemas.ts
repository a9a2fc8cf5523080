import { z } from 'zod';
import { repeated, uuidFilter } from '../kernel/pagination.js';
import { pageQuery } from '../kernel/pagination.js';
import { datetime, listResource } from '../polar-api/schemas.js';
import { MAX_CONCURRENCY_LIMIT } from './ordering.js';

/** Polar's WebhookEventType (2026-04): spec §4's types plus seats, members, discounts, benefits and grants. */
export const WEBHOOK_EVENT_TYPES = [
  'checkout.created',
  'checkout.updated',
  'checkout.expired',
  'customer.created',
  'customer.updated',
  'customer.deleted',
  'customer.state_changed',
  'customer_seat.assigned',
  'customer_seat.claimed',
  'customer_seat.revoked',
  'member.created',
  'member.updated',
  'member.deleted',
  'order.created',
  'order.updated',
  'order.paid',
  'order.refunded',
  'subscription.created',
  'subscription.updated',
  'subscription.active',
  'subscription.canceled',
  'subscription.uncanceled',
  'subscription.cycled',
  'subscription.revoked',
  'subscription.past_due',
  'subscription.paused',
  'subscription.resumed',
  'refund.created',
  'refund.updated',
  'product.created',
  'product.updated',
  'discount.created',
  'discount.updated',
  'discount.deleted',
  'benefit.created',
  'benefit.updated',
  'benefit_grant.created',
  'benefit_grant.cycled',
  'benefit_grant.updated',
  'benefit_grant.revoked',
  'organization.updated',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const webhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES).meta({ id: 'WebhookEventType' });
export const webhookFormatSchema = z.enum(['raw', 'discord', 'slack']).meta({ id: 'WebhookFormat' });

const url = z.string().min(1).max(2083);

export const webhookEndpointSchema = z
  .object({
    created_at: datetime,
    modified_at: datetime.nullable(),
    id: z.string(),
    url: z.string(),
    name: z.string().nullable(),
    format: webhookFormatSchema,
    // Polar returns the secret on every read (its SDK requires the field).
    secret: z.string(),
    organization_id: z.string(),
    events: z.array(webhookEventTypeSchema),
    enabled: z.boolean(),
    // Till's addition (Polar's SDK ignores it): deliveries in flight at once, over events about different customers.
    max_concurrency: z.number().int(),
  })
  .meta({ id: 'WebhookEndpoint' });

const maxConcurrency = z
  .number()
  .int()
  .min(1)
  .max(MAX_CONCURRENCY_LIMIT)
  .describe(
    'Till extension: how many deliveries to this endpoint may be in flight at once (events about one customer always go one at a time, in order). Null or absent: 32.',
  );

export const webhookEndpointCreateSchema = z
  .strictObject({
    url,
    name: z.string().max(255).nullable().optional(),
    format: webhookFormatSchema,
    events: z.array(webhookEventTypeSchema).max(WEBHOOK_EVENT_TYPES.length),
    organization_id: z.string().min(1).max(64).nullable().optional(),
    max_concurrency: maxConcurrency.nullable().optional(),
  })
  .meta({ id: 'WebhookEndpointCreate' });

export const webhookEndpointUpdateSchema = z
  .strictObject({
    url: url.nullable().optional(),
    name: z.string().max(255).nullable().optional(),
    format: webhookFormatSchema.nullable().optional(),
    events: z.array(webhookEventTypeSchema).max(WEBHOOK_EVENT_TYPES.length).nullable().optional(),
    enabled: z.boolean().nullable().optional(),
    max_concurrency: maxConcurrency.nullable().optional(),
  })
  .meta({ id: 'WebhookEndpointUpdate' });

export const webhookEventSchema = z
  .object({
    created_at: datetime,
    modified_at: datetime.nullable(),
    id: z.string(),
    last_http_code: z.number().int().nullable(),
    succeeded: z.boolean().nullable(),
    skipped: z.boolean(),
    payload: z.string().nullable(),
    type: webhookEventTypeSchema,
    is_archived: z.boolean(),
    // Till's additions: where the event stands in its retry schedule.
    webhook_endpoint_id: z.string(),
    status: z.enum(['pending', 'succeeded', 'failed', 'skipped']),
    attempts: z.number().int(),
    next_attempt_at: datetime.nullable(),
  })
  .meta({ id: 'WebhookEvent' });

export const webhookDeliverySchema = z
  .object({
    created_at: datetime,
    modified_at: datetime.nullable(),
    id: z.string(),
    succeeded: z.boolean(),
    http_code: z.number().int().nullable(),
    response: z.string().nullable(),
    webhook_event: webhookEventSchema,
    // Till's additions, which Polar's log lacks.
    webhook_endpoint_id: z.string(),
    attempt: z.number().int(),
    duration_ms: z.number().int(),
  })
  .meta({ id: 'WebhookDelivery' });

export const webhookEndpointListSchema = listResource(webhookEndpointSchema, 'ListResource_WebhookEndpoint_');
export const webhookDeliveryListSchema = listResource(webhookDeliverySchema, 'ListResource_WebhookDelivery_');

const booleanQuery = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');

export const endpointListQuery = z.object({
  organization_id: repeated(z.string()).optional(),
  ...pageQuery,
});

export const deliveryListQuery = z.object({
  endpoint_id: uuidFilter().optional(),
  start_timestamp: datetime.optional(),
  end_timestamp: datetime.optional(),
  succeeded: booleanQuery.optional(),
  query: z.string().max(255).optional(),
  http_code_class: z.enum(['2xx', '3xx', '4xx', '5xx']).optional(),
  event_type: repeated(webhookEventTypeSchema).optional(),
  ...pageQuery,
});

export const eventStreamQuery = z.object({
  organization_id: z.string().min(1).max(64).optional(),
  /** Same as the Last-Event-ID header, for clients that cannot set headers (EventSource on reconnect sets it). */
  last_event_id: z
    .string()
    .regex(/^\d+$/)
    .refine((id) => Number(id) <= Number.MAX_SAFE_INTEGER, 'last_event_id is out of range')
    .optional(),
});

export type WebhookEndpointWire = z.infer<typeof webhookEndpointSchema>;
export type WebhookEventWire = z.infer<typeof webhookEventSchema>;
export type WebhookDeliveryWire = z.infer<typeof webhookDeliverySchema>;
export type EndpointCreateInput = z.output<typeof webhookEndpointCreateSchema>;
export type EndpointUpdateInput = z.output<typeof webhookEndpointUpdateSchema>;
export type DeliveryListQuery = z.output<typeof deliveryListQuery>;
