import type { Address } from '../customers/address.js';
import type { Db, Deferred } from '../database/index.js';
import { dialect, parseJson, toBool, toDate, toDateOrNull, toStringOrNull } from '../database/index.js';
import type { ListOptions } from '../kernel/pagination.js';
import { paginate } from '../kernel/pagination.js';
import { whereMetadata } from '../polar-api/metadata-filter.js';
import type { MetadataQuery } from '../polar-api/metadata-query.js';
import { stampsFromRow, whereAnyOf, whereExternalCustomers, type ResourceStamps } from '../polar-api/resource-rows.js';
import type { BillingReason, OrderStatus } from './schemas.js';

export interface OrderItem {
  id: string;
  orderId: string;
  label: string;
  amount: number;
  taxAmount: number;
  proration: boolean;
  productPriceId: string | null;
  position: number;
  createdAt: Date;
}

export interface Order extends ResourceStamps {
  id: string;
  organizationId: string;
  status: OrderStatus;
  billingReason: BillingReason;
  customerId: string;
  productId: string | null;
  productPriceId: string | null;
  discountId: string | null;
  subscriptionId: string | null;
  checkoutId: string | null;
  subtotalAmount: number;
  discountAmount: number;
  netAmount: number;
  taxAmount: number;
  totalAmount: number;
  refundedAmount: number;
  refundedTaxAmount: number;
  currency: string;
  billingName: string | null;
  billingAddress: Address | null;
  invoiceNumber: string;
  /** When the invoice document was generated (POST /v1/orders/{id}/invoice); null until then. */
  invoiceGeneratedAt: Date | null;
  paymentProcessor: string;
  paymentReference: string | null;
  customFieldData: Record<string, string | number | boolean | null>;
}

function fromRow(row: Record<string, unknown>): Order {
  return {
    id: String(row.id),
    organizationId: String(row.organization_id),
    status: String(row.status) as OrderStatus,
    billingReason: String(row.billing_reason) as BillingReason,
    customerId: String(row.customer_id),
    productId: toStringOrNull(row.product_id),
    productPriceId: toStringOrNull(row.product_price_id),
    discountId: toStringOrNull(row.discount_id),
    subscriptionId: toStringOrNull(row.subscription_id),
    checkoutId: toStringOrNull(row.checkout_id),
    subtotalAmount: Number(row.subtotal_amount),
    discountAmount: Number(row.discount_amount),
    netAmount: Number(row.net_amount),
    taxAmount: Number(row.tax_amount),
    totalAmount: Number(row.total_amount),
    refundedAmount: Number(row.refunded_amount),
    refundedTaxAmount: Number(row.refunded_tax_amount),
    currency: String(row.currency),
    billingName: toStringOrNull(row.billing_name),
    billingAddress: parseJson<Address>(row.billing_address),
    invoiceNumber: String(row.invoice_number),
    invoiceGeneratedAt: toDateOrNull(row.invoice_generated_at),
    paymentProcessor: String(row.payment_processor),
    paymentReference: toStringOrNull(row.payment_reference),
    customFieldData: parseJson<Order['customFieldData']>(row.custom_field_data) ?? {},
    ...stampsFromRow(row),
  };
}

function itemFromRow(row: Record<string, unknown>): OrderItem {
  return {
    id: String(row.id),
    orderId: String(row.order_id),
    label: String(row.label),
    amount: Number(row.amount),
    taxAmount: Number(row.tax_amount),
    proration: toBool(row.proration),
    productPriceId: toStringOrNull(row.product_price_id),
    position: Number(row.position),
    createdAt: toDate(row.created_at),
  };
}

export interface OrderFilter {
  organizationIds: string[];
  productIds?: string[];
  customerIds?: string[];
  subscriptionIds?: string[];
  statuses?: string[];
  billingReasons?: string[];
  checkoutIds?: string[];
  discountIds?: string[];
  /** Customers named by the merchant's external id. */
  externalCustomerIds?: string[];
  /** Polar's ProductBillingType: `one_time` or `recurring`, by the ordered product. */
  productBillingTypes?: string[];
  metadata?: MetadataQuery;
}

// Knex writes a multi-row INSERT on SQLite as a compound SELECT: 100 rows stay under its limit of 500 terms.
const ROWS_PER_INSERT = 100;

function orderRow(order: Order): Record<string, unknown> {
  return {
    id: order.id,
    organization_id: order.organizationId,
    status: order.status,
    billing_reason: order.billingReason,
    customer_id: order.customerId,
    product_id: order.productId,
    product_price_id: order.productPriceId,
    discount_id: order.discountId,
    subscription_id: order.subscriptionId,
    checkout_id: order.checkoutId,
    subtotal_amount: order.subtotalAmount,
    discount_amount: order.discountAmount,
    net_amount: order.netAmount,
    tax_amount: order.taxAmount,
    total_amount: order.totalAmount,
    refunded_amount: order.refundedAmount,
    refunded_tax_amount: order.refundedTaxAmount,
    currency: order.currency,
    billing_name: order.billingName,
    billing_address: order.billingAddress ? JSON.stringify(order.billingAddress) : null,
    invoice_number: order.invoiceNumber,
    payment_processor: order.paymentProcessor,
    payment_reference: order.paymentReference,
    metadata: JSON.stringify(order.metadata),
    custom_field_data: JSON.stringify(order.customFieldData),
    created_at: order.createdAt,
    modified_at: order.modifiedAt,
  };
}

export function ordersRepository(db: Db) {
  return {
    /** The INSERT, not run yet (see Deferred). */
    deferInsert(order: Order): Deferred {
      return db('orders').insert(orderRow(order));
    },
    /**
     * Many orders (a batch of renewals), in multi-row INSERTs not run yet; SQLite builds a multi-row insert as a
     * compound SELECT, limited to 500 terms, hence the chunks.
     */
    deferInsertMany(orders: readonly Order[]): Deferred[] {
      const rows = orders.map(orderRow);
      const writes: Deferred[] = [];
      for (let start = 0; start < rows.length; start += ROWS_PER_INSERT)
        writes.push(db('orders').insert(rows.slice(start, start + ROWS_PER_INSERT)));
      return writes;
    },
    /** The INSERT of the items, not run yet (see Deferred); null when there are none. */
    deferInsertItems(items: OrderItem[]): Deferred | null {
      if (items.length > 0) {
        return db('order_items').insert(
          items.map((item) => ({
            id: item.id,
            order_id: item.orderId,
            label: item.label,
            amount: item.amount,
            tax_amount: item.taxAmount,
            proration: item.proration,
            product_price_id: item.productPriceId,
            position: item.position,
            created_at: item.createdAt,
          })),
        );
      }
      return null;
    },
    /** deferInsertItems for many orders' items, in chunks (see deferInsertMany). */
    deferInsertManyItems(items: readonly OrderItem[]): Deferred[] {
      const writes: Deferred[] = [];
      for (let start = 0; start < items.length; start += ROWS_PER_INSERT)
        writes.push(this.deferInsertItems(items.slice(start, start + ROWS_PER_INSERT))!);
      return writes;
    },
    async findByIds(ids: readonly string[]): Promise<Order[]> {
      if (ids.length === 0) return [];
      return ((await db('orders').whereIn('id', [...new Set(ids)])) as Array<Record<string, unknown>>).map(fromRow);
    },
    /** lock for many orders (a batch of renewal charges), in one order of ids so two batches never deadlock. */
    async lockMany(ids: readonly string[]): Promise<Order[]> {
      if (ids.length === 0) return [];
      const query = db('orders').whereIn('id', [...new Set(ids)]);
      const rows = (await (dialect(db) === 'postgres' ? query.orderBy('id').forUpdate() : query)) as Array<
        Record<string, unknown>
      >;
      return rows.map(fromRow);
    },
    /** markPaid for many orders, each with its payment reference, in one statement. */
    async markManyPaid(paid: ReadonlyArray<{ id: string; paymentReference: string }>, at: Date): Promise<void> {
      if (paid.length === 0) return;
      const cases = paid.map(() => 'WHEN ? THEN ?').join(' ');
      await db('orders')
        .whereIn(
          'id',
          paid.map((order) => order.id),
        )
        .where({ status: 'pending' })
        .update({
          status: 'paid',
          payment_reference: db.raw(
            `CASE id ${cases} END`,
            paid.flatMap((order) => [order.id, order.paymentReference]),
          ),
          modified_at: at,
        });
    },
    async findById(id: string): Promise<Order | null> {
      const row = await db('orders').where({ id }).first();
      return row ? fromRow(row) : null;
    },
    /** Reads and locks the order (PostgreSQL), so concurrent refunds of it run one after another. */
    async lock(id: string): Promise<Order | null> {
      const query = db('orders').where({ id });
      const row = await (dialect(db) === 'postgres' ? query.forUpdate() : query).first();
      return row ? fromRow(row) : null;
    },
    async itemsOf(orderIds: readonly string[]): Promise<Map<string, OrderItem[]>> {
      const map = new Map<string, OrderItem[]>(orderIds.map((id) => [id, []]));
      if (orderIds.length === 0) return map;
      const rows = await db('order_items').whereIn('order_id', orderIds).orderBy('position', 'asc');
      for (const row of rows) map.get(String(row.order_id))?.push(itemFromRow(row));
      return map;
    },
    async updateRefunds(
      id: string,
      changes: { refundedAmount: number; refundedTaxAmount: number; status: OrderStatus; modifiedAt: Date },
    ): Promise<void> {
      await db('orders').where({ id }).update({
        refunded_amount: changes.refundedAmount,
        refunded_tax_amount: changes.refundedTaxAmount,
        status: changes.status,
        modified_at: changes.modifiedAt,
      });
    },
    /** A pending order (a renewal) paid by the charge with this processor reference (null: nothing was due). */
    async markPaid(id: string, paymentReference: string | null, at: Date): Promise<void> {
      await db('orders')
        .where({ id, status: 'pending' })
        .update({ status: 'paid', payment_reference: paymentReference, modified_at: at });
    },
    /** A subscription's orders still waiting for a payment (what a new card retries at once). */
    async pendingOfSubscriptions(subscriptionIds: readonly string[]): Promise<Order[]> {
      if (subscriptionIds.length === 0) return [];
      const rows = (await db('orders')
        .whereIn('subscription_id', [...subscriptionIds])
        .where({ status: 'pending' })) as Array<Record<string, unknown>>;
      return rows.map(fromRow);
    },
    async updateBilling(
      id: string,
      changes: { billingName: string | null; billingAddress: Address | null; modifiedAt: Date },
    ): Promise<void> {
      await db('orders')
        .where({ id })
        .update({
          billing_name: changes.billingName,
          billing_address: changes.billingAddress ? JSON.stringify(changes.billingAddress) : null,
          modified_at: changes.modifiedAt,
        });
    },
    async list(filter: OrderFilter, options: ListOptions) {
      const query = db('orders').whereIn('organization_id', filter.organizationIds);
      whereAnyOf(query, {
        product_id: filter.productIds,
        customer_id: filter.customerIds,
        subscription_id: filter.subscriptionIds,
        status: filter.statuses,
        billing_reason: filter.billingReasons,
        checkout_id: filter.checkoutIds,
        discount_id: filter.discountIds,
      });
      whereExternalCustomers(db, query, filter.organizationIds, filter.externalCustomerIds);
      const billing = new Set(filter.productBillingTypes ?? []);
      if (billing.size === 1) {
        const recurring = db('products').select('id').whereNotNull('recurring_interval');
        if (billing.has('recurring')) query.whereIn('product_id', recurring);
        else
          query.where((inner) => {
            inner.whereNull('product_id').orWhereNotIn('product_id', recurring);
          });
      }
      if (filter.metadata) whereMetadata(db, query, filter.metadata);
      const page = await paginate<Record<string, unknown>>(query, options, {
        created_at: 'created_at',
        status: 'status',
        invoice_number: 'invoice_number',
        amount: 'total_amount',
        net_amount: 'net_amount',
      });
      return { items: page.rows.map(fromRow), pagination: page.pagination };
    },
    /**
     * The next invoice number of an organization, counted in its own row so concurrent orders get distinct numbers.
     * One statement (the first order of an organization creates the row), atomic on its own: it needs no
     * transaction around it, and holds the row's lock only while it runs.
     */
    /** `count` invoice numbers of the organization in one statement (a batch of renewals), in increasing order. */
    async nextInvoiceNumbers(organizationId: string, prefix: string, count: number): Promise<string[]> {
      const [row] = await db('invoice_counters')
        .insert({ organization_id: organizationId, last_number: count })
        .onConflict('organization_id')
        .merge({ last_number: db.raw('invoice_counters.last_number + ?', [count]) })
        .returning('last_number');
      const last = Number(row.last_number);
      return Array.from({ length: count }, (_, i) => `${prefix}-${String(last - count + 1 + i).padStart(4, '0')}`);
    },
    async nextInvoiceNumber(organizationId: string, prefix: string): Promise<string> {
      const [row] = await db('invoice_counters')
        .insert({ organization_id: organizationId, last_number: 1 })
        .onConflict('organization_id')
        .merge({ last_number: db.raw('invoice_counters.last_number + 1') })
        .returning('last_number');
      return `${prefix}-${String(Number(row.last_number)).padStart(4, '0')}`;
    },
  };
}
