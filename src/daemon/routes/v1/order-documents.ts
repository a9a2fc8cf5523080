import { z } from 'zod';
import type { CoreContext } from '../../../core/context.js';
import { orderInvoiceSchema, orderReceiptSchema } from '../../../core/order-documents/schemas.js';
import { idParams } from '../../../core/polar-api/schemas.js';
import { readScopes } from '../../../core/polar-api/scopes.js';
import { authenticateCustomer } from '../../auth/customer-auth.js';
import type { V1Api } from './operation.js';

/**
 * Invoices and receipts of an order, for the merchant (`orders:read`, as Polar) and for the customer in the portal.
 * Generating an invoice answers 202 as Polar's does; the link to the PDF comes from the GET.
 */
export function registerOrderDocumentsRoutes(api: V1Api, core: CoreContext): void {
  const documents = core.orderDocuments;
  const generated = z.object({}).meta({ id: 'InvoiceGenerationAccepted' });
  api.op(
    {
      method: 'post',
      path: '/v1/orders/:id/invoice',
      operationId: 'orders:generate_invoice',
      tag: 'orders',
      summary: "Generate an order's invoice (needs the billing name and address; takes the next invoice number)",
      scopes: readScopes('orders'),
      params: idParams,
      response: generated,
      status: 202,
    },
    ({ actor, params }) => documents.merchant.generateInvoice(actor, params.id),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/orders/:id/invoice',
      operationId: 'orders:invoice',
      tag: 'orders',
      summary: "Get a short-lived link to an order's invoice PDF",
      scopes: readScopes('orders'),
      params: idParams,
      response: orderInvoiceSchema,
    },
    ({ actor, params }) => documents.merchant.invoice(actor, params.id),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/orders/:id/receipt',
      operationId: 'orders:receipt',
      tag: 'orders',
      summary: "Get a short-lived link to a paid order's receipt PDF",
      scopes: readScopes('orders'),
      params: idParams,
      response: orderReceiptSchema,
    },
    ({ actor, params }) => documents.merchant.receipt(actor, params.id),
  );

  const who = (ctx: Parameters<typeof authenticateCustomer>[1]) => authenticateCustomer(core, ctx);
  const tag = 'customer_portal';
  api.publicOp(
    {
      method: 'post',
      path: '/v1/customer-portal/orders/:id/invoice',
      operationId: 'customer_portal:orders:generate_invoice',
      tag,
      summary: "Generate one of the signed-in customer's invoices",
      params: idParams,
      response: generated,
      status: 202,
    },
    async ({ ctx, params }) => documents.customer.generateInvoice(await who(ctx), params.id),
  );
  api.publicOp(
    {
      method: 'get',
      path: '/v1/customer-portal/orders/:id/invoice',
      operationId: 'customer_portal:orders:invoice',
      tag,
      summary: "Get a short-lived link to one of the signed-in customer's invoices",
      params: idParams,
      response: orderInvoiceSchema,
    },
    async ({ ctx, params }) => documents.customer.invoice(await who(ctx), params.id),
  );
  api.publicOp(
    {
      method: 'get',
      path: '/v1/customer-portal/orders/:id/receipt',
      operationId: 'customer_portal:orders:receipt',
      tag,
      summary: "Get a short-lived link to one of the signed-in customer's receipts",
      params: idParams,
      response: orderReceiptSchema,
    },
    async ({ ctx, params }) => documents.customer.receipt(await who(ctx), params.id),
  );
}
