import { randomUUID } from 'node:crypto';
import type { Changing } from '../cache/changing.js';
import { merchantInvalidation } from '../cache/read-cache.js';
import type { Customer } from '../customers/repository.js';
import { customersRepository } from '../customers/repository.js';
import type { CustomerActor } from '../customers/sessions.js';
import { transaction, type Db } from '../database/index.js';
import type { Clock } from '../kernel/clock.js';
import type { ListOptions, Page } from '../kernel/pagination.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { authorize, organizationFilter, organizationForCreate, readableOrganizationIds } from '../polar-api/actor.js';
import { resourceNotFound } from '../polar-api/errors.js';
import type { MetadataQuery } from '../polar-api/metadata-query.js';
import { meterAggregatesRepository } from './aggregates-repository.js';
import { scheduleBackfillStep } from './backfill.js';
import { customerMeterFigures } from './customer-meters.js';
import { meterQuantities } from './quantities.js';
import { metersRepository, type Meter } from './repository.js';
import type {
  CustomerCustomerMeterWire,
  CustomerMeterWire,
  MeterCreateInput,
  MeterQuantitiesQuery,
  MeterQuantitiesWire,
  MeterUpdateInput,
  MeterWire,
} from './schemas.js';
import { customerCustomerMeterWire, customerMeterWire, meterWire } from './wire.js';

export function createMeterService(deps: { db: Db; clock: Clock; changing: Changing }) {
  const { db, clock } = deps;

  async function find(actor: MerchantActor, id: string, mode: 'read' | 'write', on: Db = db): Promise<Meter> {
    const meter = await metersRepository(on).findById(id);
    if (!meter || !readableOrganizationIds(actor).includes(meter.organizationId)) throw resourceNotFound();
    authorize(actor, meter.organizationId, mode);
    return meter;
  }

  /**
   * Starts counting the events that exist now (if any) in the background: in the transaction that created or
   * changed the meter, under the organization's exclusive lock, so no ingestion runs between reading the target
   * and committing.
   */
  async function startBackfill(trx: Db, meter: Meter, at: Date): Promise<Meter> {
    const target = await metersRepository(trx).lastEventSeq(meter.organizationId);
    const next: Meter = { ...meter, backfillTarget: target > 0 ? target : null, backfillCursor: 0 };
    if (next.backfillTarget !== null) await scheduleBackfillStep(trx, next, at);
    return next;
  }

  async function customersOf(actor: MerchantActor, organizationId: string, ids?: string[], externalIds?: string[]) {
    const repo = customersRepository(db);
    const found: Customer[] = [];
    for (const id of ids ?? []) {
      const customer = await repo.findById(id);
      if (customer && customer.organizationId === organizationId) found.push(customer);
    }
    for (const externalId of externalIds ?? []) {
      const customer = await repo.findByExternalId([organizationId], externalId);
      if (customer) found.push(customer);
    }
    authorize(actor, organizationId, 'read');
    return found;
  }

  return {
    async create(actor: MerchantActor, input: MeterCreateInput): Promise<MeterWire> {
      const organizationId = organizationForCreate(actor, input.organization_id);
      return transaction(db, async (trx) => {
        const meters = metersRepository(trx);
        await meters.lockOrganization(organizationId, 'exclusive');
        const now = clock.now();
        const meter = await startBackfill(
          trx,
          {
            id: randomUUID(),
            organizationId,
            name: input.name,
            unit: input.unit,
            customLabel: input.custom_label ?? null,
            customMultiplier: input.custom_multiplier ?? null,
            filter: input.filter,
            aggregation: input.aggregation,
            metadata: input.metadata ?? {},
            createdAt: now,
            modifiedAt: null,
            archivedAt: null,
            backfillTarget: null,
            backfillCursor: 0,
          },
          now,
        );
        await meters.insert(meter);
        return meterWire(meter);
      });
    },

    async list(
      actor: MerchantActor,
      query: ListOptions & { organization_id?: string[]; query?: string; is_archived?: boolean },
      metadata: MetadataQuery,
    ): Promise<Page<MeterWire>> {
      const page = await metersRepository(db).list(
        {
          organizationIds: organizationFilter(actor, query.organization_id),
          query: query.query,
          isArchived: query.is_archived,
          metadata,
        },
        query,
      );
      return { items: page.items.map(meterWire), pagination: page.pagination };
    },

    async get(actor: MerchantActor, id: string): Promise<MeterWire> {
      return meterWire(await find(actor, id, 'read'));
    },

    /**
     * Polar's update; a new filter or aggregation forgets what was counted and counts every event again. The
     * catalog's cached prices embed the meter, so the organization's caches hear of it.
     */
    async update(actor: MerchantActor, id: string, input: MeterUpdateInput): Promise<MeterWire> {
      return deps.changing(async (trx, announce) => {
        const current = await find(actor, id, 'write', trx);
        announce([merchantInvalidation(current.organizationId)]);
        const meters = metersRepository(trx);
        await meters.lockOrganization(current.organizationId, 'exclusive');
        const now = clock.now();
        let next: Meter = { ...current, modifiedAt: now };
        if (input.name) next.name = input.name;
        if (input.unit) next.unit = input.unit;
        if (input.custom_label !== undefined) next.customLabel = input.custom_label;
        if (input.custom_multiplier !== undefined) next.customMultiplier = input.custom_multiplier;
        if (input.metadata) next.metadata = input.metadata;
        if (input.is_archived === true && !current.archivedAt) next.archivedAt = now;
        if (input.is_archived === false) next.archivedAt = null;
        const recount =
          (input.filter && JSON.stringify(input.filter) !== JSON.stringify(current.filter)) ||
          (input.aggregation && JSON.stringify(input.aggregation) !== JSON.stringify(current.aggregation));
        if (input.filter) next.filter = input.filter;
        if (input.aggregation) next.aggregation = input.aggregation;
        // An archived meter is not fed by ingestion: unarchiving it counts again what it missed.
        if (recount || (current.archivedAt !== null && next.archivedAt === null)) {
          await meterAggregatesRepository(trx).clear(current.id, current.organizationId);
          next = await startBackfill(trx, next, now);
        }
        await meters.update(next);
        return meterWire(next);
      });
    },

    async quantities(
      actor: MerchantActor,
      id: string,
      query: MeterQuantitiesQuery,
      metadata: MetadataQuery = {},
    ): Promise<MeterQuantitiesWire> {
      const meter = await find(actor, id, 'read');
      const wantsCustomers = query.customer_id !== undefined || query.external_customer_id !== undefined;
      const customers = wantsCustomers
        ? await customersOf(actor, meter.organizationId, query.customer_id, query.external_customer_id)
        : null;
      return meterQuantities(
        db,
        meter,
        {
          start: Date.parse(query.start_timestamp),
          end: Date.parse(query.end_timestamp),
          interval: query.interval,
          timezone: query.timezone,
        },
        customers,
        { customerAggregation: query.customer_aggregation_function ?? null, metadata },
      );
    },

    async listCustomerMeters(
      actor: MerchantActor,
      query: ListOptions & {
        organization_id?: string[];
        customer_id?: string[];
        external_customer_id?: string[];
        meter_id?: string[];
      },
    ): Promise<Page<CustomerMeterWire>> {
      const page = await meterAggregatesRepository(db).listCustomerMeters(
        {
          organizationIds: organizationFilter(actor, query.organization_id),
          customerIds: query.customer_id,
          externalCustomerIds: query.external_customer_id,
          meterIds: query.meter_id,
        },
        query,
      );
      const items = await this.renderCustomerMeters(
        page.rows.map((row) => ({ customerId: row.customerId, meterId: row.total.meterId })),
      );
      return { items, pagination: { total_count: page.total, max_page: Math.ceil(page.total / query.limit) } };
    },

    async getCustomerMeter(actor: MerchantActor, id: string): Promise<CustomerMeterWire> {
      const row = await meterAggregatesRepository(db).totalById(id);
      if (!row || !readableOrganizationIds(actor).includes(row.organizationId)) throw resourceNotFound();
      const customers = customersRepository(db);
      const customer =
        row.customerId !== null
          ? await customers.findById(row.customerId)
          : await customers.findByExternalId([row.organizationId], row.externalCustomerId ?? '');
      if (!customer) throw resourceNotFound();
      const [wire] = await this.renderCustomerMeters([{ customerId: customer.id, meterId: row.meterId }]);
      if (!wire) throw resourceNotFound();
      return wire;
    },

    /** Customer meters for (customer, meter) pairs, in the order given; pairs with nothing counted are left out. */
    async renderCustomerMeters(pairs: Array<{ customerId: string; meterId: string }>): Promise<CustomerMeterWire[]> {
      const customers = new Map(
        (await customersRepository(db).findAnyByIds(pairs.map((p) => p.customerId))).map((c) => [c.id, c]),
      );
      const meters = new Map((await metersRepository(db).findByIds(pairs.map((p) => p.meterId))).map((m) => [m.id, m]));
      const out: CustomerMeterWire[] = [];
      for (const pair of pairs) {
        const customer = customers.get(pair.customerId);
        const meter = meters.get(pair.meterId);
        if (!customer || !meter) continue;
        const figure = (await customerMeterFigures(db, customer, [meter])).get(meter.id);
        if (figure) out.push(customerMeterWire(figure, customer, meter));
      }
      return out;
    },

    /** The portal's meters: the signed-in customer's, figured the same way. */
    async portalList(
      who: CustomerActor,
      query: ListOptions & { meter_id?: string[]; query?: string },
    ): Promise<Page<CustomerCustomerMeterWire>> {
      const customer = who.customer;
      let meters = (await metersRepository(db).activeOf(customer.organizationId)).filter(
        (meter) =>
          (!query.meter_id || query.meter_id.includes(meter.id)) &&
          (!query.query || meter.name.toLowerCase().includes(query.query.toLowerCase())),
      );
      const figures = await customerMeterFigures(db, customer, meters);
      meters = meters.filter((meter) => figures.has(meter.id));
      const key = (meter: Meter, field: string): string | number => {
        const figure = figures.get(meter.id)!;
        if (field === 'created_at') return figure.createdAt.getTime();
        if (field === 'meter_id') return meter.id;
        if (field === 'meter_name') return meter.name;
        if (field === 'consumed_units') return figure.consumed;
        if (field === 'credited_units') return figure.credited;
        if (field === 'balance') return figure.credited - figure.consumed;
        return figure.modifiedAt?.getTime() ?? 0;
      };
      meters.sort((a, b) => {
        for (const criterion of query.sorting) {
          const descending = criterion.startsWith('-');
          const field = descending ? criterion.slice(1) : criterion;
          const x = key(a, field);
          const y = key(b, field);
          if (x !== y) return (x < y ? -1 : 1) * (descending ? -1 : 1);
        }
        return a.id < b.id ? -1 : 1;
      });
      const slice = meters.slice((query.page - 1) * query.limit, query.page * query.limit);
      return {
        items: slice.map((meter) => customerCustomerMeterWire(figures.get(meter.id)!, customer.id, meter)),
        pagination: { total_count: meters.length, max_page: Math.ceil(meters.length / query.limit) },
      };
    },

    async portalGet(who: CustomerActor, id: string): Promise<CustomerCustomerMeterWire> {
      const row = await meterAggregatesRepository(db).totalById(id);
      const customer = who.customer;
      const mine =
        row !== null &&
        (row.customerId === customer.id ||
          (row.customerId === null &&
            row.organizationId === customer.organizationId &&
            row.externalCustomerId === customer.externalId));
      if (!row || !mine) throw resourceNotFound();
      const meter = await metersRepository(db).findById(row.meterId);
      if (!meter) throw resourceNotFound();
      const figure = (await customerMeterFigures(db, customer, [meter])).get(meter.id);
      if (!figure) throw resourceNotFound();
      return customerCustomerMeterWire(figure, customer.id, meter);
    },
  };
}

export type MeterService = ReturnType<typeof createMeterService>;
