import { describe, expect, it } from 'vitest';
import { transaction } from '../../src/core/database/index.js';
import { customersRepository } from '../../src/core/customers/repository.js';
import { resetMeters } from '../../src/core/metered-billing/usage.js';
import { periodUsage } from '../../src/core/meters/period-usage.js';
import type { ProductPrice } from '../../src/core/products/read.js';
import { seededRandom } from '../fuzz/generators.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';

/**
 * Property: whatever the order of ingestion (duplicates, timestamps out of order, concurrent batches, meters created
 * or changed midway and counted by backfill, customers created after their events, cycle bills that reset a
 * customer's meter), every customer meter, every cycle bill and every quantity series equals a recomputation from
 * the raw events stored. The oracle below shares no code with the daemon: a filter is evaluated by a plain recursive
 * interpreter, and a bill is the oracle's units since the customer's last reset × 0.35¢, in integers.
 */

const daemon = useTestDaemon();

type Value = string | number | boolean;
type Clause = { property: string; operator: string; value: Value };
type FilterNode = { conjunction: 'and' | 'or'; clauses: Array<Clause | FilterNode> };
type Aggregation = { func: 'count' } | { func: 'sum' | 'max' | 'min' | 'avg' | 'unique'; property: string };
interface RawEvent {
  seq: number;
  customer_id: string | null;
  external_customer_id: string | null;
  name: string;
  source: string;
  timestamp: number;
  metadata: Record<string, Value>;
}

function holds(node: FilterNode | Clause, event: RawEvent): boolean {
  if ('clauses' in node) {
    const results = node.clauses.map((clause) => holds(clause, event));
    if (results.length === 0) return true;
    return node.conjunction === 'and' ? results.every(Boolean) : results.some(Boolean);
  }
  const found: Value | undefined =
    node.property === 'name' ? event.name : node.property === 'source' ? event.source : event.metadata[node.property];
  if (found === undefined) return false;
  if (typeof node.value === 'number') {
    if (typeof found !== 'number') return false;
    const v = node.value;
    return {
      eq: found === v,
      ne: found !== v,
      gt: found > v,
      gte: found >= v,
      lt: found < v,
      lte: found <= v,
      like: String(found).includes(String(v)),
      not_like: !String(found).includes(String(v)),
    }[node.operator]!;
  }
  if (typeof node.value === 'boolean') {
    if (typeof found !== 'boolean') return false;
    return node.operator === 'eq' ? found === node.value : node.operator === 'ne' ? found !== node.value : false;
  }
  const text = String(found);
  const v = node.value;
  return {
    eq: text === v,
    ne: text !== v,
    gt: text > v,
    gte: text >= v,
    lt: text < v,
    lte: text <= v,
    like: text.toLowerCase().includes(v.toLowerCase()),
    not_like: !text.toLowerCase().includes(v.toLowerCase()),
  }[node.operator]!;
}

function aggregate(aggregation: Aggregation, events: RawEvent[]): number {
  if (aggregation.func === 'count') return events.length;
  const values = events.map((event) => event.metadata[aggregation.property]).filter((value) => value !== undefined);
  if (aggregation.func === 'unique') return new Set(values.map((value) => JSON.stringify(value))).size;
  const numbers = values.filter((value): value is number => typeof value === 'number');
  if (numbers.length === 0) return 0;
  switch (aggregation.func) {
    case 'sum':
      return numbers.reduce((a, b) => a + b, 0);
    case 'max':
      return Math.max(...numbers);
    case 'min':
      return Math.min(...numbers);
    case 'avg':
      return numbers.reduce((a, b) => a + b, 0) / numbers.length;
  }
}

const NAMES = ['api.call', 'llm', 'upload'];
const TAGS = ['alpha', 'beta', 'Gamma', 'delta'];
const HOUR = 3_600_000;
const BASE = Date.parse('2026-11-18T00:00:00Z');

describe('meters: running aggregates equal a recomputation from raw events', () => {
  it.each(['seed-1', 'seed-2', 'seed-3'])('holds for a random history (%s)', async (seed) => {
    const random = seededRandom(seed);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const int = (n: number) => Math.floor(random() * n);
    const merchant: Merchant = await createMerchant(daemon());

    const customers: Array<{ id: string; externalId: string | null }> = [];
    async function createCustomer(externalId: string | null) {
      const response = await merchant.api.post('/v1/customers/', {
        email: uniqueEmail('prop'),
        ...(externalId ? { external_id: externalId } : {}),
      });
      expect(response.status, response.text).toBe(201);
      customers.push({ id: response.json.id, externalId });
    }
    for (let i = 0; i < 4; i++) await createCustomer(i % 2 ? `ext-${i}` : null);
    const pendingExternal = ['late-1', 'late-2'];

    function randomClause(): Clause {
      const kind = int(4);
      if (kind === 0)
        return { property: 'name', operator: pick(['eq', 'ne', 'like']), value: pick(NAMES).slice(0, 3 + int(3)) };
      if (kind === 1) return { property: 'n', operator: pick(['eq', 'ne', 'gt', 'gte', 'lt', 'lte']), value: int(20) };
      if (kind === 2)
        return {
          property: 'tag',
          operator: pick(['eq', 'ne', 'like', 'not_like', 'gt', 'lt']),
          value: pick(TAGS)
            .toLowerCase()
            .slice(0, 2 + int(3)),
        };
      return { property: 'flag', operator: pick(['eq', 'ne']), value: random() < 0.5 };
    }
    function randomFilter(depth = 0): FilterNode {
      const clauses: Array<Clause | FilterNode> = Array.from({ length: int(3) }, () =>
        depth < 2 && random() < 0.3 ? randomFilter(depth + 1) : randomClause(),
      );
      return { conjunction: random() < 0.5 ? 'and' : 'or', clauses };
    }
    function randomAggregation(): Aggregation {
      const func = pick(['count', 'sum', 'max', 'min', 'avg', 'unique'] as const);
      if (func === 'count') return { func };
      return { func, property: func === 'unique' ? pick(['tag', 'n']) : 'n' };
    }
    const meters: Array<{ id: string; filter: FilterNode; aggregation: Aggregation }> = [];
    async function createMeter(aggregation: Aggregation = randomAggregation()) {
      const filter = randomFilter();
      const response = await merchant.api.post('/v1/meters/', { name: `meter ${meters.length}`, filter, aggregation });
      expect(response.status, response.text).toBe(201);
      meters.push({ id: response.json.id, filter, aggregation });
    }
    // Every aggregation is exercised: three meters from the start, three created midway (counted by backfill).
    await createMeter({ func: 'count' });
    await createMeter({ func: 'max', property: 'n' });
    await createMeter({ func: 'unique', property: 'tag' });
    const midway: Aggregation[] = [
      { func: 'sum', property: 'n' },
      { func: 'min', property: 'n' },
      { func: 'avg', property: 'n' },
    ];

    let externalIdCounter = 0;
    const usedExternalIds: string[] = [];
    function randomEvent() {
      const who =
        random() < 0.2
          ? { external_customer_id: pick(pendingExternal) }
          : (() => {
              const customer = pick(customers);
              return customer.externalId && random() < 0.5
                ? { external_customer_id: customer.externalId }
                : { customer_id: customer.id };
            })();
      const metadata: Record<string, Value> = {};
      if (random() < 0.9) metadata.n = int(20) - 3;
      if (random() < 0.8) metadata.tag = pick(TAGS);
      if (random() < 0.5) metadata.flag = random() < 0.5;
      let external_id: string | undefined;
      if (random() < 0.3) {
        external_id = usedExternalIds.length > 0 && random() < 0.4 ? pick(usedExternalIds) : `x${externalIdCounter++}`;
        usedExternalIds.push(external_id);
      }
      return {
        name: pick(NAMES),
        ...who,
        timestamp: new Date(BASE + int(72 * HOUR)).toISOString(),
        metadata,
        ...(external_id ? { external_id } : {}),
      };
    }
    const batch = () => Array.from({ length: 1 + int(40) }, randomEvent);
    async function ingest(events: unknown[]) {
      const response = await merchant.api.post('/v1/events/ingest', { events });
      expect(response.status, response.text).toBe(200);
    }

    async function rawEvents(): Promise<RawEvent[]> {
      const rows = (await daemon()
        .core.db('events')
        .where({ organization_id: merchant.organization.id, source: 'user' })) as Array<Record<string, unknown>>;
      return rows.map((row) => ({
        seq: Number(row.seq),
        customer_id: (row.customer_id as string | null) ?? null,
        external_customer_id: (row.external_customer_id as string | null) ?? null,
        name: String(row.name),
        source: String(row.source),
        timestamp: Number(row.timestamp),
        metadata: JSON.parse(String(row.metadata)),
      }));
    }
    const ownerOf = (event: RawEvent) =>
      customers.find(
        (customer) =>
          customer.id === event.customer_id ||
          (event.customer_id === null && customer.externalId === event.external_customer_id),
      );
    // Per meter and customer, the last event seq a bill covered: a customer meter counts what came after.
    const lastReset = new Map<string, number>();
    const sinceReset = (raw: RawEvent[], meter: (typeof meters)[number], customer: (typeof customers)[number]) =>
      raw.filter(
        (event) =>
          holds(meter.filter, event) &&
          ownerOf(event) === customer &&
          event.seq > (lastReset.get(`${meter.id}|${customer.id}`) ?? 0),
      );
    let bills = 0;
    /** A cycle bill of one customer's meter, through a metered price of 0.35¢ a unit, then the meter's reset. */
    async function bill(meter: (typeof meters)[number], customer: (typeof customers)[number]) {
      const raw = await rawEvents();
      const units = aggregate(meter.aggregation, sinceReset(raw, meter, customer));
      const price = { amountType: 'metered_unit', unitAmount: '0.35', capAmount: null, meterId: meter.id };
      await transaction(daemon().core.db, async (trx) => {
        const row = (await customersRepository(trx).findAnyById(customer.id))!;
        const [line] = await periodUsage(trx, row, [price as ProductPrice]);
        expect(line!.consumed).toBeCloseTo(units, 9);
        // 0.35¢ a unit, half away from zero: exact in integers for whole units, within half a cent for an avg.
        const billable = Math.max(0, units);
        if (Number.isInteger(billable)) expect(line!.amount).toBe(Math.floor((billable * 70 + 100) / 200));
        else expect(Math.abs(line!.amount - billable * 0.35)).toBeLessThanOrEqual(0.5 + 1e-9);
        await resetMeters(
          trx,
          row,
          [{ meterId: meter.id, consumed: line!.consumed, credited: line!.credited }],
          new Date(),
        );
      });
      lastReset.set(`${meter.id}|${customer.id}`, Math.max(...raw.map((event) => event.seq), 0));
      bills += 1;
    }

    for (let step = 0; step < 24; step++) {
      if (step % 6 === 5 && midway.length > 0) await createMeter(midway.shift());
      const action = int(10);
      if (action < 5) await ingest(batch());
      else if (action < 7) await Promise.all([ingest(batch()), ingest(batch()), ingest(batch())]);
      else if (action === 7 && meters.length < 8) await createMeter();
      else if (action === 8 && pendingExternal.length > 0) {
        const externalId = pendingExternal.shift()!;
        await createCustomer(externalId);
        pendingExternal.push(`late-step-${step}`);
      } else if (action === 9 && meters.length > 0) {
        const meter = pick(meters);
        meter.aggregation = randomAggregation();
        const changed = await merchant.api.call('PATCH', `/v1/meters/${meter.id}`, {
          body: { aggregation: meter.aggregation },
        });
        expect(changed.status, changed.text).toBe(200);
      }
      if (random() < 0.3) await daemon().core.scheduler.drain();
      if (step % 4 === 3) {
        // A bill needs the meter counted to date: a meter still backfilling bills when it is done.
        await daemon().core.scheduler.drain();
        await bill(pick(meters), pick(customers));
      }
    }
    await daemon().core.scheduler.drain();
    // A meter changed after a bill counts again in the background, and only what came after each customer's bill.
    const billed = meters.find((meter) => [...lastReset.keys()].some((key) => key.startsWith(`${meter.id}|`)))!;
    billed.aggregation = billed.aggregation.func === 'count' ? { func: 'sum', property: 'n' } : { func: 'count' };
    const recount = await merchant.api.call('PATCH', `/v1/meters/${billed.id}`, {
      body: { aggregation: billed.aggregation },
    });
    expect(recount.status, recount.text).toBe(200);
    await daemon().core.scheduler.drain();

    const raw = await rawEvents();
    expect(bills).toBe(6);

    // The history must exercise what it claims to: pending external ids, several meters, events each meter counts.
    expect(raw.some((event) => event.customer_id === null)).toBe(true);
    expect(meters.length).toBeGreaterThanOrEqual(6);
    expect(meters.filter((meter) => raw.some((event) => holds(meter.filter, event))).length).toBeGreaterThanOrEqual(4);
    for (const meter of meters) {
      const matched = raw.filter((event) => holds(meter.filter, event));
      // Listing events by the meter runs its filter as SQL: it must select exactly what the predicate matches.
      const bySql = await merchant.api.get(`/v1/events/?meter_id=${meter.id}&limit=1`);
      expect(bySql.json.pagination.total_count, JSON.stringify(meter.filter)).toBe(matched.length);
      const listed = await merchant.api.get(`/v1/customer-meters/?meter_id=${meter.id}&limit=100`);
      expect(listed.status, listed.text).toBe(200);
      const byCustomer = new Map<string, number>(
        listed.json.items.map((item: { customer_id: string; consumed_units: number }) => [
          item.customer_id,
          item.consumed_units,
        ]),
      );
      for (const customer of customers) {
        const own = sinceReset(raw, meter, customer);
        if (own.length === 0) {
          // Never counted, or counted to 0 since its last bill.
          expect(byCustomer.get(customer.id) ?? 0).toBe(0);
          if (!lastReset.has(`${meter.id}|${customer.id}`)) expect(byCustomer.has(customer.id)).toBe(false);
          continue;
        }
        expect(byCustomer.get(customer.id), `meter ${JSON.stringify(meter)} customer ${customer.id}`).toBeCloseTo(
          aggregate(meter.aggregation, own),
          9,
        );
      }
      const start = BASE - HOUR;
      const end = BASE + 72 * HOUR;
      for (const interval of ['hour', 'day'] as const) {
        const series = await merchant.api.get(
          `/v1/meters/${meter.id}/quantities?start_timestamp=${new Date(start).toISOString()}&end_timestamp=${new Date(end).toISOString()}&interval=${interval}`,
        );
        expect(series.status, series.text).toBe(200);
        const width = interval === 'hour' ? HOUR : 24 * HOUR;
        const first = Math.floor(start / width) * width;
        for (const point of series.json.quantities as Array<{ timestamp: string; quantity: number }>) {
          const at = Date.parse(point.timestamp);
          const inPeriod = matched.filter((event) => event.timestamp >= at && event.timestamp < at + width);
          expect(point.quantity).toBeCloseTo(aggregate(meter.aggregation, inPeriod), 9);
        }
        expect(Date.parse(series.json.quantities[0].timestamp)).toBe(first);
        expect(series.json.total).toBeCloseTo(
          aggregate(
            meter.aggregation,
            matched.filter((event) => event.timestamp >= first),
          ),
          9,
        );
      }
      const someone = customers[0]!;
      const perCustomer = await merchant.api.get(
        `/v1/meters/${meter.id}/quantities?start_timestamp=${new Date(start).toISOString()}&end_timestamp=${new Date(end).toISOString()}&interval=day&customer_id=${someone.id}`,
      );
      expect(perCustomer.json.total).toBeCloseTo(
        aggregate(
          meter.aggregation,
          matched.filter((event) => ownerOf(event) === someone),
        ),
        9,
      );
    }
  });
});
