import type { Db } from '../database/index.js';
import { toStringOrNull } from '../database/index.js';

/** What a document prints about the seller and the buyer, beyond the order itself. */
export interface Seller {
  name: string;
  slug: string;
  email: string | null;
  website: string | null;
  country: string | null;
}

export function orderDocumentsRepository(db: Db) {
  return {
    async seller(organizationId: string): Promise<Seller | null> {
      const row = await db('organizations')
        .where({ id: organizationId })
        .first('name', 'slug', 'email', 'website', 'country');
      if (!row) return null;
      return {
        name: String(row.name),
        slug: String(row.slug),
        email: toStringOrNull(row.email),
        website: toStringOrNull(row.website),
        country: toStringOrNull(row.country),
      };
    },

    async buyerEmail(customerId: string): Promise<string | null> {
      const row = await db('customers').where({ id: customerId }).first('email');
      return row ? toStringOrNull(row.email) : null;
    },

    async invoiceDocumentNumber(orderId: string): Promise<string | null> {
      const row = await db('orders').where({ id: orderId }).first('invoice_document_number');
      return row ? toStringOrNull(row.invoice_document_number) : null;
    },

    /**
     * The organization's next invoice number, inside the generating transaction: the counter row stays locked until
     * it commits, so two invoices never share a number and a rolled-back generation gives its number back.
     */
    async nextInvoiceNumber(organizationId: string): Promise<number> {
      const [row] = await db('invoice_sequences')
        .insert({ organization_id: organizationId, last_number: 1 })
        .onConflict('organization_id')
        .merge({ last_number: db.raw('invoice_sequences.last_number + 1') })
        .returning('last_number');
      return Number(row.last_number);
    },

    /** Marks the order's invoice generated with its number, once: false when another request did it first. */
    async markInvoiceGenerated(orderId: string, number: string, at: Date): Promise<boolean> {
      const updated = await db('orders')
        .where({ id: orderId })
        .whereNull('invoice_document_number')
        .update({ invoice_document_number: number, invoice_generated_at: at });
      return updated === 1;
    },
  };
}
