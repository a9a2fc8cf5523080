import type { Customer } from '../customers/repository.js';
import { customersRepository } from '../customers/repository.js';
import type { Db } from '../database/index.js';
import type { Background } from '../kernel/background.js';
import type { CrashHook } from '../kernel/crash.js';
import type { Clock } from '../kernel/clock.js';
import type { Page } from '../kernel/pagination.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { organizationFilter, readableOrganizationIds } from '../polar-api/actor.js';
import { fieldError, resourceNotFound } from '../polar-api/errors.js';
import type { MetadataQuery } from '../polar-api/metadata-query.js';
import { whereFilter } from '../meters/filter-sql.js';
import { metersRepository } from '../meters/repository.js';
import { filterSchema, type Filter } from '../meters/schemas.js';
import { createIngestion } from './ingest.js';
import { eventsRepository, type EventFilters, type StoredEvent } from './repository.js';
import type { EventListQuery, EventTypeWire, EventWire } from './schemas.js';
import { eventTypeWire, eventWire } from './wire.js';

export function createEventService(deps: { db: Db; clock: Clock; background: Background; crashAt?: CrashHook }) {
  const { db } = deps;
  const ingestion = createIngestion(deps);

  /** Wires for a page: its customers and child counts in one query each. */
  async function render(events: StoredEvent[]): Promise<EventWire[]> {
    const customers = customersRepository(db);
    const ids = events.flatMap((event) => (event.customerId ? [event.customerId] : []));
    const [found, children] = await Promise.all([
      customers.findAnyByIds(ids),
      eventsRepository(db).childCounts(events.map((event) => event.id)),
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
      return eventWire(event, customer, children.get(event.id) ?? 0);
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
        parentId: query.parent_id,
        metadata,
      };
      if (query.customer_id) {
        const customers = (await customersRepository(db).findAnyByIds(query.customer_id)).filter((customer) =>
          organizationIds.includes(customer.organizationId),
        );
        filters.customers = {
          ids: query.customer_id,
          externalIds: customers.flatMap((customer) => (customer.externalId === null ? [] : [customer.externalId])),
        };
      }
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

    async listTypes(
      actor: MerchantActor,
      query: {
        organization_id?: string[];
        query?: string;
        source?: 'system' | 'user';
        page: number;
        limit: number;
        sorting: string[];
      },
    ): Promise<Page<EventTypeWire>> {
      const page = await eventsRepository(db).listTypes(
        { organizationIds: organizationFilter(actor, query.organization_id), query: query.query, source: query.source },
        query,
      );
      return { items: page.items.map(eventTypeWire), pagination: page.pagination };
    },
  };
}

export type EventService = ReturnType<typeof createEventService>;
