import type { Db } from '../database/index.js';
import { toMajorString } from '../kernel/money-text.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { organizationFilter } from '../polar-api/actor.js';
import { csvCell, csvLine, zonedTimestamps, type CsvValue } from './csv.js';
import type { CustomerExportQuery, OrderExportQuery, SubscriptionExportQuery } from './inputs.js';
import { DEFAULT_ORDER_COLUMNS, DEFAULT_SUBSCRIPTION_COLUMNS } from './inputs.js';
import type { Cursor, CustomerExportRow, OrderExportRow, SubscriptionExportRow } from './repository.js';
import { exportsRepository } from './repository.js';
import { inKeyOrder } from './key-order.js';

/** Rows per query: large enough to keep a million-row export quick, small enough to hold one batch at a time. */
const BATCH = 1000;

type Cell = { value: CsvValue; typed?: 'text' | 'plain' };
type Columns<Row> = Record<string, (row: Row, time: (date: Date | null) => string) => Cell>;

const text = (value: string | null): Cell => ({ value, typed: 'text' });
const money = (amount: number, currency: string): Cell => ({ value: toMajorString(amount, currency) });

/** Amounts are decimals in the currency's units (12.34), as a spreadsheet sums them; the currency has its column. */
const ORDER_COLUMNS: Columns<OrderExportRow> = {
  email: (row) => text(row.email),
  created_at: (row, time) => ({ value: time(row.createdAt) }),
  product: (row) => text(row.product),
  net_amount: (row) => money(row.netAmount, row.currency),
  currency: (row) => ({ value: row.currency }),
  status: (row) => ({ value: row.status }),
  invoice_number: (row) => text(row.invoiceNumber),
  customer_name: (row) => text(row.customerName),
  billing_name: (row) => text(row.billingName),
  billing_country: (row) => ({ value: row.billingCountry }),
  subtotal_amount: (row) => money(row.subtotalAmount, row.currency),
  discount_amount: (row) => money(row.discountAmount, row.currency),
  tax_amount: (row) => money(row.taxAmount, row.currency),
  total_amount: (row) => money(row.totalAmount, row.currency),
  refunded_amount: (row) => money(row.refundedAmount, row.currency),
  billing_reason: (row) => ({ value: row.billingReason }),
};

const SUBSCRIPTION_COLUMNS: Columns<SubscriptionExportRow> = {
  email: (row) => text(row.email),
  started_at: (row, time) => ({ value: time(row.startedAt) }),
  product: (row) => text(row.product),
  amount: (row) => money(row.amount, row.currency),
  currency: (row) => ({ value: row.currency }),
  status: (row) => ({ value: row.status }),
  recurring_interval: (row) => ({ value: row.recurringInterval }),
  customer_name: (row) => text(row.customerName),
  billing_name: (row) => text(row.billingName),
  billing_country: (row) => ({ value: row.billingCountry }),
  // The subscription's amount is its price after any discount: what each period bills before tax.
  net_amount: (row) => money(row.amount, row.currency),
  discount: (row) => text(row.discount),
  // Seat-based prices are not sold by Till: every subscription is one seat.
  seats: () => ({ value: 1 }),
  current_period_start: (row, time) => ({ value: time(row.currentPeriodStart) }),
  current_period_end: (row, time) => ({ value: time(row.currentPeriodEnd) }),
  cancel_at_period_end: (row) => ({ value: row.cancelAtPeriodEnd }),
  canceled_at: (row, time) => ({ value: time(row.canceledAt) }),
  ends_at: (row, time) => ({ value: time(row.endsAt) }),
  ended_at: (row, time) => ({ value: time(row.endedAt) }),
  cancellation_reason: (row) => ({ value: row.cancellationReason }),
  trial_start: (row, time) => ({ value: time(row.trialStart) }),
  trial_end: (row, time) => ({ value: time(row.trialEnd) }),
};

const CUSTOMER_COLUMNS: Columns<CustomerExportRow> = {
  id: (row) => ({ value: row.id }),
  external_id: (row) => text(row.externalId),
  created_at: (row, time) => ({ value: time(row.createdAt) }),
  email: (row) => text(row.email),
  name: (row) => text(row.name),
  tax_id: (row) => text(row.taxId),
  billing_name: (row) => text(row.billingName),
  billing_address_line1: (row) => text(row.billingAddress?.line1 ?? null),
  billing_address_line2: (row) => text(row.billingAddress?.line2 ?? null),
  billing_address_city: (row) => text(row.billingAddress?.city ?? null),
  billing_address_state: (row) => text(row.billingAddress?.state ?? null),
  billing_address_postal_code: (row) => text(row.billingAddress?.postal_code ?? null),
  billing_address_country: (row) => ({ value: row.billingAddress?.country ?? null }),
};

/** The CSV text of an export: the header line, then one line per row, produced batch by batch as the reader pulls. */
async function* csv<Row extends Cursor>(
  columns: Columns<Row>,
  names: readonly string[],
  timeZone: string,
  batches: AsyncIterable<Row[]>,
): AsyncGenerator<string> {
  const time = zonedTimestamps(timeZone);
  const cells = names.map((name) => columns[name]!);
  yield csvLine(names.map((name) => csvCell(name)));
  for await (const rows of batches) {
    let chunk = '';
    for (const row of rows) {
      chunk += csvLine(
        cells.map((cell) => {
          const { value, typed } = cell(row, time);
          return csvCell(value, typed);
        }),
      );
    }
    yield chunk;
  }
}

/** Polar's CSV exports of orders, subscriptions and customers, narrowed to the organizations the caller may read. */
export function createExportsService(deps: { db: Db }) {
  const repo = () => exportsRepository(deps.db);
  return {
    orders(actor: MerchantActor, query: OrderExportQuery): AsyncGenerator<string> {
      const organizationIds = organizationFilter(actor, query.organization_id);
      const filter = {
        productIds: query.product_id,
        statuses: query.status,
        createdAfter: query.created_after ? new Date(query.created_after) : undefined,
        createdBefore: query.created_before ? new Date(query.created_before) : undefined,
      };
      const rows = inKeyOrder((id, cursor, limit) => repo().orders(id, filter, cursor, limit), organizationIds, BATCH);
      return csv(ORDER_COLUMNS, query.columns ?? DEFAULT_ORDER_COLUMNS, query.timezone, rows);
    },

    subscriptions(actor: MerchantActor, query: SubscriptionExportQuery): AsyncGenerator<string> {
      const organizationIds = organizationFilter(actor, query.organization_id);
      const filter = {
        productIds: query.product_id,
        statuses: query.status,
        cancelAtPeriodEnd: query.cancel_at_period_end,
        startedAfter: query.started_after ? new Date(query.started_after) : undefined,
        startedBefore: query.started_before ? new Date(query.started_before) : undefined,
      };
      const rows = inKeyOrder(
        (id, cursor, limit) => repo().subscriptions(id, filter, cursor, limit),
        organizationIds,
        BATCH,
      );
      return csv(SUBSCRIPTION_COLUMNS, query.columns ?? DEFAULT_SUBSCRIPTION_COLUMNS, query.timezone, rows);
    },

    customers(actor: MerchantActor, query: CustomerExportQuery): AsyncGenerator<string> {
      const organizationIds = organizationFilter(actor, query.organization_id);
      const rows = inKeyOrder((id, cursor, limit) => repo().customers(id, cursor, limit), organizationIds, BATCH);
      return csv(CUSTOMER_COLUMNS, Object.keys(CUSTOMER_COLUMNS), 'UTC', rows);
    },
  };
}

export type ExportsService = ReturnType<typeof createExportsService>;
