import { z } from 'zod';

/** Polar's OrderInvoice and OrderReceipt: where the PDF is (a short-lived signed link). */
export const orderInvoiceSchema = z.object({ url: z.string() }).meta({ id: 'OrderInvoice' });
export const orderReceiptSchema = z.object({ url: z.string() }).meta({ id: 'OrderReceipt' });
export type DocumentLink = z.output<typeof orderInvoiceSchema>;
