import type { Db, Deferred } from '../database/index.js';
import { toBool, toDate, toDateOrNull } from '../database/index.js';
import { paginate, type ListOptions } from '../kernel/pagination.js';

/** A card a customer keeps for later charges. */
export interface PaymentMethod {
  id: string;
  organizationId: string;
  customerId: string;
  processor: string;
  processorReference: string;
  type: 'card';
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  isDefault: boolean;
  createdAt: Date;
  modifiedAt: Date | null;
}

function fromRow(row: Record<string, unknown>): PaymentMethod {
  return {
    id: String(row.id),
    organizationId: String(row.organization_id),
    customerId: String(row.customer_id),
    processor: String(row.processor),
    processorReference: String(row.processor_reference),
    type: 'card',
    brand: String(row.brand),
    last4: String(row.last4),
    expMonth: Number(row.exp_month),
    expYear: Number(row.exp_year),
    isDefault: toBool(row.is_default),
    createdAt: toDate(row.created_at),
    modifiedAt: toDateOrNull(row.modified_at),
  };
}

function toRow(method: PaymentMethod): Record<string, unknown> {
  return {
    id: method.id,
    organization_id: method.organizationId,
    customer_id: method.customerId,
    processor: method.processor,
    processor_reference: method.processorReference,
    type: method.type,
    brand: method.brand,
    last4: method.last4,
    exp_month: method.expMonth,
    exp_year: method.expYear,
    is_default: method.isDefault,
    created_at: method.createdAt,
    modified_at: method.modifiedAt,
  };
}

export function paymentMethodsRepository(db: Db) {
  return {
    /** The INSERT, not run yet (see Deferred). */
    deferInsert(method: PaymentMethod): Deferred {
      return db('payment_methods').insert(toRow(method));
    },
    /** Takes the default flag off the customer's current default, if any; runs before a new default is written. */
    deferClearDefault(customerId: string, at: Date): Deferred {
      return db('payment_methods')
        .where({ customer_id: customerId, is_default: true })
        .update({ is_default: false, modified_at: at });
    },
    async setDefault(id: string, at: Date): Promise<void> {
      await db('payment_methods').where({ id }).update({ is_default: true, modified_at: at });
    },
    async findById(id: string): Promise<PaymentMethod | null> {
      const row = await db('payment_methods').where({ id }).first();
      return row ? fromRow(row) : null;
    },
    /** Newest first, as Polar lists them. */
    async listForCustomer(customerId: string, options: Omit<ListOptions, 'sorting'>) {
      const page = await paginate<Record<string, unknown>>(
        db('payment_methods').where({ customer_id: customerId }),
        { ...options, sorting: ['-created_at'] },
        { created_at: 'created_at' },
      );
      return { items: page.rows.map(fromRow), pagination: page.pagination };
    },
    /** Every method of the customer, newest first. */
    async allForCustomer(customerId: string): Promise<PaymentMethod[]> {
      const rows = (await db('payment_methods')
        .where({ customer_id: customerId })
        .orderBy('created_at', 'desc')
        .orderBy('id', 'asc')) as Array<Record<string, unknown>>;
      return rows.map(fromRow);
    },
    async defaultIdOf(customerId: string): Promise<string | null> {
      const row = (await db('payment_methods').where({ customer_id: customerId, is_default: true }).first('id')) as
        { id: string } | undefined;
      return row ? String(row.id) : null;
    },
    async delete(id: string): Promise<void> {
      await db('payment_methods').where({ id }).delete();
    },
  };
}
