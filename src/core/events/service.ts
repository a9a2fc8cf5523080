import type { Customer } from '../customers/repository.js';
import { customersRepository } from '../customers/repository.js';
import type { Db } from '../database/index.js';
import type { Background } from '../kernel/background.js';
import type { CrashHook } from '../kernel/crash.js';
import type { Clock } from '../kernel/clock.js';
import type { Page } from '../kernel/pagination.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { authorize, organizationFilter, readableOrganizationIds } from '../polar-api/actor.js';
import { fieldError, resourceNotFound } from '../polar-api/errors.js';
import type { MetadataQuery } from '../polar-api/metadata-query.js';
import { isUuid } from '../polar-api/schemas.js';
import { whereFilter } from '../meters/filter-sql.js';
import { metersRepository } from '../meters/repository.js';
import { filterSchema, type Filter } from '../meters/schemas.js';
import { eventTypesRepository, typeKey } from './event-types-repository.js';
import { createIngestion } from './ingest.js';
import { eventsRepository, type EventFilters, type StoredEvent } from './repository.js';
import type {
  EventListQuery,
  EventNameListQuery,
  EventNameWire,
  EventTypeListQuery,
  EventTypeUpdatedWire,
  EventTypeUpdateInput,
  EventTypeWire,
  EventWire,
} from './schemas.js';
import { eventNameWire, eventTypeUpdatedWire, eventTypeWire, eventWire } from './wire.js';

export function createEventService(deps: { db: Db; clock: Clock; background: Background; crashAt?: CrashHook }) {
  const { db } = deps;
  const ingestion = createIngestion(deps);

  /** Wires for a page: its customers and child counts in one query each. */
  async function render(events: StoredEvent[]): Promise<EventWire[]> {
    const customers = customersRepository(db);
    const ids = events.flatMap((event) => (event.customerId ? [event.customerId] : []));
    const [found, children, labels] = await Promise.all([
      customers.findAnyByIds(ids),
      eventsRepository(db).childCounts(events.map((event) => event.id)),
      eventTypesRepository(db).labelsOf(events),
    ]);
    const byId = new Map(found.map((customer) => [customer.id, customer]));
    const pending = new Map<string, Customer | null>();
    for (const event of events) {
      if (event.customerId || event.externalCustomerId === null) continue;
      const key = `${event.organizationId}|${event.externalCustomerId}`;
      if (!pending.has(key))
        pending.set(key, await customers.findByExternalId([event.organizationId], event.externalCustomerId));
    }
    return events.map((event) => {
      const customer = event.customerId
        ? (byId.get(event.customerId) ?? null)
        : (pending.get(`${event.organizationId}|${event.externalCustomerId}`) ?? null);
      return eventWire(event, customer, children.get(event.id) ?? 0, labels.get(typeKey(event)));
    });
  }

  function parseFilter(raw: string): Filter {
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      throw fieldError(['query', 'filter'], 'The filter is not valid JSON.', 'json_invalid');
    }
    const parsed = filterSchema.safeParse(json);
    if (!parsed.success) throw fieldError(['query', 'filter'], parsed.error.issues[0]?.message ?? 'Invalid filter.');
    return parsed.data;
  }

  /**
   * The events of these customers: by customer id, and the events still pending under one of their external ids
   * (ingested before the customer existed).
   */
  async function customersFilter(
    organizationIds: string[],
    ids: string[],
  ): Promise<NonNullable<EventFilters['customers']>> {
    const customers = (await customersRepository(db).findAnyByIds(ids)).filter((customer) =>
      organizationIds.includes(customer.organizationId),
    );
    return {
      ids,
      externalIds: customers.flatMap((customer) => (customer.externalId === null ? [] : [customer.externalId])),
    };
  }

  /** The organizations' events of the customers a query names, by id and by external id (any if it names none). */
  async function customerEvents(
    organizationIds: string[],
    query: { customer_id?: string[]; external_customer_id?: string[] },
  ): Promise<EventFilters> {
    return {
      organizationIds,
      externalCustomerIds: query.external_customer_id,
      ...(query.customer_id ? { customers: await customersFilter(organizationIds, query.customer_id) } : {}),
    };
  }

  return {
    ingest: ingestion.ingest,

    async list(actor: MerchantActor, query: EventListQuery, metadata: MetadataQuery): Promise<Page<EventWire>> {
      const organizationIds = organizationFilter(actor, query.organization_id);
      const filters: EventFilters = {
        organizationIds,
        externalCustomerIds: query.external_customer_id,
        names: query.name,
        sources: query.source,
        from: query.start_timestamp ? Date.parse(query.start_timestamp) : undefined,
        to: query.end_timestamp ? Date.parse(query.end_timestamp) : undefined,
        query: query.query,
        metadata,
      };
      // With a depth, parent_id is where the tree starts (instead of the roots), not a filter on direct children.
      if (query.depth !== undefined) filters.tree = { depth: query.depth, anchorId: query.parent_id };
      else filters.parentId = query.parent_id;
      if (query.customer_id) filters.customers = await customersFilter(organizationIds, query.customer_id);
      const predicates: Filter[] = [];
      if (query.filter) predicates.push(parseFilter(query.filter));
      if (query.meter_id) {
        const meter = await metersRepository(db).findById(query.meter_id);
        if (!meter || !organizationIds.includes(meter.organizationId))
          return { items: [], pagination: { total_count: 0, max_page: 0 } };
        predicates.push(meter.filter);
        filters.organizationIds = [meter.organizationId];
        filters.sources = ['user'];
      }
      if (predicates.length > 0)
        filters.where = (builder) => whereFilter(db, builder, { conjunction: 'and', clauses: predicates });
      const page = await eventsRepository(db).list(filters, query);
      return { items: await render(page.items), pagination: page.pagination };
    },

    async get(actor: MerchantActor, id: string): Promise<EventWire> {
      const event = await eventsRepository(db).findById(id);
      if (!event || !readableOrganizationIds(actor).includes(event.organizationId)) throw resourceNotFound();
      const [wire] = await render([event]);
      return wire!;
    },

    async listTypes(actor: MerchantActor, query: EventTypeListQuery): Promise<Page<EventTypeWire>> {
      const organizationIds = organizationFilter(actor, query.organization_id);
      // Filters on the events count those events; without one, the counts ingestion keeps in each type's row.
      const counted = Boolean(query.customer_id || query.external_customer_id || query.root_events || query.parent_id);
      const events: EventFilters | undefined = counted
        ? { ...(await customerEvents(organizationIds, query)), rootsOnly: query.root_events, parentId: query.parent_id }
        : undefined;
      const page = await eventTypesRepository(db).list(
        { organizationIds, query: query.query, source: query.source, events },
        query,
      );
      return { items: page.items.map(eventTypeWire), pagination: page.pagination };
    },

    async listNames(actor: MerchantActor, query: EventNameListQuery): Promise<Page<EventNameWire>> {
      const organizationIds = organizationFilter(actor, query.organization_id);
      const events: EventFilters | undefined =
        query.customer_id || query.external_customer_id ? await customerEvents(organizationIds, query) : undefined;
      const page = await eventTypesRepository(db).listNames(
        { organizationIds, query: query.query, sources: query.source, events },
        query,
      );
      return { items: page.items.map(eventNameWire), pagination: page.pagination };
    },

    async updateType(actor: MerchantActor, id: string, input: EventTypeUpdateInput): Promise<EventTypeUpdatedWire> {
      const repository = eventTypesRepository(db);
      const type = isUuid(id) ? await repository.findById(id) : null;
      if (!type) throw resourceNotFound();
      authorize(actor, type.organizationId, 'write');
      const changes = {
        label: input.label,
        labelPropertySelector: input.label_property_selector,
        modifiedAt: deps.clock.now(),
      };
      await repository.update(type.id, changes);
      return eventTypeUpdatedWire({
        ...type,
        label: changes.label,
        labelPropertySelector:
          changes.labelPropertySelector === undefined ? type.labelPropertySelector : changes.labelPropertySelector,
        modifiedAt: changes.modifiedAt,
      });
    },
  };
}

export type EventService = ReturnType<typeof createEventService>;
