import { z } from 'zod';
import { customerSchema } from '../customers/schemas.js';
import { pageQuery, repeated, sortingQuery, uuidFilter } from '../kernel/pagination.js';
import { datetime, listResource, metadataInput, metadataOutput, organizationIdInput } from '../polar-api/schemas.js';
import { canonicalZone } from '../kernel/time-zones.js';

/** The /v1 wire shapes of meters, their quantities and customer meters (Polar's schemas, SDK 0.47 parses them). */

export const FILTER_OPERATORS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'like', 'not_like'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/**
 * Nesting beyond this is refused: a filter is compiled and evaluated recursively for every ingested event. The cost
 * is bounded by the clauses' count; the depth bound keeps recursion and a filter's JSON well inside the body's
 * nesting limit, so a deeper one is refused with this rule's own message.
 */
export const MAX_FILTER_DEPTH = 10;
export const MAX_FILTER_CLAUSES = 100;

export const filterClauseSchema = z
  .object({
    property: z.string().min(1).max(256),
    operator: z.enum(FILTER_OPERATORS),
    value: z.union([z.string().max(1000), z.number().int().min(-2147483648).max(2147483647), z.boolean()]),
  })
  .meta({ id: 'FilterClause' });

export type FilterClause = z.infer<typeof filterClauseSchema>;
export interface Filter {
  conjunction: 'and' | 'or';
  clauses: Array<FilterClause | Filter>;
}

function depthOf(filter: Filter): number {
  let deepest = 0;
  for (const clause of filter.clauses) if ('clauses' in clause) deepest = Math.max(deepest, depthOf(clause));
  return deepest + 1;
}

function clauseCount(filter: Filter): number {
  return filter.clauses.reduce((n, clause) => n + ('clauses' in clause ? clauseCount(clause) : 1), 0);
}

const filterNode: z.ZodType<Filter> = z.lazy(() =>
  z.object({
    conjunction: z.enum(['and', 'or']),
    clauses: z.array(z.union([filterClauseSchema, filterNode])).max(MAX_FILTER_CLAUSES),
  }),
);

export const filterSchema = filterNode
  .superRefine((filter, ctx) => {
    if (depthOf(filter) > MAX_FILTER_DEPTH)
      ctx.addIssue({ code: 'custom', message: `A filter may nest at most ${MAX_FILTER_DEPTH} levels deep.` });
    else if (clauseCount(filter) > MAX_FILTER_CLAUSES)
      ctx.addIssue({ code: 'custom', message: `A filter may have at most ${MAX_FILTER_CLAUSES} clauses.` });
  })
  .meta({ id: 'Filter' });

const propertyName = z.string().min(1).max(256);

export const aggregationSchema = z
  .discriminatedUnion('func', [
    z.object({ func: z.literal('count') }).meta({ id: 'CountAggregation' }),
    z
      .object({ func: z.enum(['sum', 'max', 'min', 'avg']), property: propertyName })
      .meta({ id: 'PropertyAggregation' }),
    z.object({ func: z.literal('unique'), property: propertyName }).meta({ id: 'UniqueAggregation' }),
  ])
  .meta({ id: 'Aggregation' });

export type Aggregation = z.infer<typeof aggregationSchema>;

/** Polar's AggregationFunction: a meter's aggregation, and how quantities combine customers' (quantities.ts). */
export const AGGREGATION_FUNCTIONS = ['count', 'sum', 'max', 'min', 'avg', 'unique'] as const;
export type AggregationFunction = (typeof AGGREGATION_FUNCTIONS)[number];

export const METER_UNITS = ['scalar', 'token', 'custom'] as const;
export type MeterUnit = (typeof METER_UNITS)[number];

export const meterCreateSchema = z
  .strictObject({
    name: z.string().min(3).max(256),
    unit: z.enum(METER_UNITS).default('scalar'),
    custom_label: z.string().max(64).nullable().optional(),
    // Stored in a 32-bit column.
    custom_multiplier: z.number().int().positive().max(2_147_483_647).nullable().optional(),
    filter: filterSchema,
    aggregation: aggregationSchema,
    metadata: metadataInput.optional(),
    organization_id: organizationIdInput,
  })
  .superRefine(requireCustomLabel)
  .meta({ id: 'MeterCreate' });

export const meterUpdateSchema = z
  .strictObject({
    name: z.string().min(3).max(256).nullable().optional(),
    unit: z.enum(METER_UNITS).nullable().optional(),
    custom_label: z.string().max(64).nullable().optional(),
    // Stored in a 32-bit column.
    custom_multiplier: z.number().int().positive().max(2_147_483_647).nullable().optional(),
    filter: filterSchema.nullable().optional(),
    aggregation: aggregationSchema.nullable().optional(),
    metadata: metadataInput.optional(),
    is_archived: z.boolean().nullable().optional(),
  })
  .superRefine(requireCustomLabel)
  .meta({ id: 'MeterUpdate' });

function requireCustomLabel(
  body: { unit?: MeterUnit | null; custom_label?: string | null },
  ctx: z.RefinementCtx<unknown>,
): void {
  if (body.unit === 'custom' && !body.custom_label)
    ctx.addIssue({
      code: 'custom',
      path: ['custom_label'],
      message: "custom_label is required when unit is 'custom'.",
    });
}

export type MeterCreateInput = z.output<typeof meterCreateSchema>;
export type MeterUpdateInput = z.output<typeof meterUpdateSchema>;

export const meterSchema = z
  .object({
    metadata: metadataOutput,
    created_at: datetime,
    modified_at: datetime.nullable(),
    id: z.string(),
    name: z.string(),
    unit: z.enum(METER_UNITS),
    custom_label: z.string().nullable(),
    custom_multiplier: z.number().int().nullable(),
    filter: filterSchema,
    aggregation: aggregationSchema,
    organization_id: z.string(),
    archived_at: datetime.nullable(),
    // Till's addition: true while events that existed before the meter (or its last change of filter or
    // aggregation) are still being counted in the background; its customer meters and quantities are partial then.
    backfill_pending: z.boolean(),
  })
  .meta({ id: 'Meter' });

export type MeterWire = z.infer<typeof meterSchema>;
export const meterListSchema = listResource(meterSchema, 'ListResource_Meter_');

const booleanQuery = z.enum(['true', 'false']).transform((value) => value === 'true');

export const meterListQuery = z.object({
  organization_id: repeated(z.string().max(64)).optional(),
  query: z.string().max(256).optional(),
  is_archived: booleanQuery.optional(),
  ...pageQuery,
  sorting: sortingQuery(['created_at', 'name'], ['name']),
});

export const TIME_INTERVALS = ['year', 'month', 'week', 'day', 'hour'] as const;
export type TimeInterval = (typeof TIME_INTERVALS)[number];

/** At most this many points in one series: an hourly series over ten years would otherwise be 87,600 points. */
export const MAX_QUANTITY_POINTS = 10_000;

export const meterQuantitiesQuery = z.object({
  start_timestamp: datetime,
  end_timestamp: datetime,
  interval: z.enum(TIME_INTERVALS),
  // Any IANA zone Intl knows (Polar lists them in its Timezone enum); periods start at its local midnight.
  timezone: z
    .string()
    .min(1)
    .max(64)
    .refine((zone) => canonicalZone(zone) !== null, { message: 'Input should be a valid IANA time zone' })
    .transform((zone) => canonicalZone(zone)!)
    .default('UTC'),
  customer_id: uuidFilter().optional(),
  external_customer_id: repeated(z.string().max(256)).optional(),
  customer_aggregation_function: z.enum(AGGREGATION_FUNCTIONS).optional(),
  // `metadata[key]=value` is read from the raw query by metadataQuery (the route), as GET /v1/events does.
});

export type MeterQuantitiesQuery = z.output<typeof meterQuantitiesQuery>;

export const meterQuantitiesSchema = z
  .object({
    quantities: z.array(z.object({ timestamp: datetime, quantity: z.number() }).meta({ id: 'MeterQuantity' })),
    total: z.number(),
  })
  .meta({ id: 'MeterQuantities' });

export type MeterQuantitiesWire = z.infer<typeof meterQuantitiesSchema>;

export const customerMeterSchema = z
  .object({
    id: z.string(),
    created_at: datetime,
    modified_at: datetime.nullable(),
    customer_id: z.string(),
    meter_id: z.string(),
    consumed_units: z.number(),
    credited_units: z.number().int(),
    balance: z.number(),
    customer: customerSchema,
    meter: meterSchema,
  })
  .meta({ id: 'CustomerMeter' });

export type CustomerMeterWire = z.infer<typeof customerMeterSchema>;
export const customerMeterListSchema = listResource(customerMeterSchema, 'ListResource_CustomerMeter_');

/** Polar's CustomerMeterSortProperty (figures.ts orders by the figures themselves; ties fall back to the row id). */
export const CUSTOMER_METER_SORTING = [
  'created_at',
  'modified_at',
  'customer_id',
  'customer_name',
  'meter_id',
  'meter_name',
  'consumed_units',
  'credited_units',
  'balance',
] as const;

export const customerMeterListQuery = z.object({
  organization_id: repeated(z.string().max(64)).optional(),
  customer_id: uuidFilter().optional(),
  external_customer_id: repeated(z.string().max(256)).optional(),
  meter_id: uuidFilter().optional(),
  ...pageQuery,
  sorting: sortingQuery(CUSTOMER_METER_SORTING, ['-modified_at']),
});

/** The portal's customer meter (Polar's CustomerCustomerMeter): the meter as the customer sees it. */
export const customerCustomerMeterSchema = z
  .object({
    id: z.string(),
    created_at: datetime,
    modified_at: datetime.nullable(),
    customer_id: z.string(),
    meter_id: z.string(),
    consumed_units: z.number(),
    credited_units: z.number().int(),
    balance: z.number(),
    meter: z
      .object({ id: z.string(), created_at: datetime, modified_at: datetime.nullable(), name: z.string() })
      .meta({ id: 'CustomerCustomerMeterMeter' }),
  })
  .meta({ id: 'CustomerCustomerMeter' });

export type CustomerCustomerMeterWire = z.infer<typeof customerCustomerMeterSchema>;
export const customerCustomerMeterListSchema = listResource(
  customerCustomerMeterSchema,
  'ListResource_CustomerCustomerMeter_',
);

export const portalMeterListQuery = z.object({
  meter_id: uuidFilter().optional(),
  query: z.string().max(256).optional(),
  ...pageQuery,
  sorting: sortingQuery(
    CUSTOMER_METER_SORTING.filter((field) => field !== 'customer_id' && field !== 'customer_name'),
    ['-modified_at'],
  ),
});
