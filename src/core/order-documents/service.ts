import type { ReadCache } from '../cache/read-cache.js';
import type { CustomerActor } from '../customers/sessions.js';
import type { Db } from '../database/index.js';
import { transaction } from '../database/index.js';
import type { Clock } from '../kernel/clock.js';
import { DomainError } from '../kernel/errors.js';
import { recordEvent } from '../kernel/outbox.js';
import { loadOrderWires } from '../orders/loaders.js';
import type { Order, OrderItem } from '../orders/repository.js';
import { ordersRepository } from '../orders/repository.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { authorize } from '../polar-api/actor.js';
import { resourceNotFound } from '../polar-api/errors.js';
import type { EmbedOptions } from '../products/embedded.js';
import { orderDocumentsRepository, type Seller } from './repository.js';
import type { DocumentLink } from './schemas.js';
import { DOCUMENT_URL_TTL_MS, documentUrlSigner, type DocumentKind } from './signer.js';

/** Everything a PDF prints: the order with its lines, who sold, who bought, and the document's own number. */
export interface OrderDocument {
  kind: DocumentKind;
  /** The invoice's number from the invoice sequence; for a receipt, the order's number. */
  number: string;
  order: Order;
  items: OrderItem[];
  seller: Seller;
  buyerEmail: string | null;
  issuedAt: Date;
}

const SETTLED = new Set(['paid', 'refunded', 'partially_refunded']);

function notEligible(): DomainError {
  return new DomainError(409, 'OrderNotEligibleForInvoice', 'Only a paid order has an invoice or a receipt.');
}

function invoicePrefix(slug: string): string {
  return (
    slug
      .toUpperCase()
      .replace(/[^A-Z0-9]/g, '')
      .slice(0, 8) || 'INV'
  );
}

/**
 * Polar's invoices and receipts of an order, for the merchant (/v1/orders) and the customer (/v1/customer-portal).
 * An invoice exists once generated (it needs the billing name and address, and takes the next number of the
 * organization's gapless invoice sequence); a receipt exists for every paid order. Both are rendered on request
 * from the order as it is, behind a signed link.
 */
export function createOrderDocumentsService(deps: {
  db: Db;
  clock: Clock;
  baseUrl: string;
  secret: string;
  readCache: ReadCache;
}) {
  const { db, clock } = deps;
  const signer = documentUrlSigner(deps.secret);
  const options: EmbedOptions = { baseUrl: deps.baseUrl, readCache: deps.readCache };

  async function merchantOrder(actor: MerchantActor, id: string): Promise<Order> {
    const order = await ordersRepository(db).findById(id);
    if (!order) throw resourceNotFound();
    authorize(actor, order.organizationId, 'read');
    return order;
  }

  async function customerOrder(actor: CustomerActor, id: string): Promise<Order> {
    const order = await ordersRepository(db).findById(id);
    if (!order || order.customerId !== actor.customer.id) throw resourceNotFound();
    return order;
  }

  function link(kind: DocumentKind, order: Order): DocumentLink {
    const token = signer.token(kind, order.id, new Date(clock.now().getTime() + DOCUMENT_URL_TTL_MS));
    return { url: `${deps.baseUrl}/documents/orders/${order.id}/${kind}.pdf?token=${token}` };
  }

  async function generate(order: Order): Promise<Record<string, never>> {
    if (!SETTLED.has(order.status)) throw notEligible();
    if (!order.billingName || !order.billingAddress)
      throw new DomainError(
        422,
        'MissingInvoiceBillingDetails',
        'The order needs a billing name and address for an invoice; set them with PATCH /v1/orders/{id} first.',
      );
    // Generating again re-renders with the order's current details under the number it already has.
    if (order.invoiceGeneratedAt) return {};
    await transaction(db, async (trx) => {
      const repo = orderDocumentsRepository(trx);
      const locked = await ordersRepository(trx).lock(order.id);
      if (!locked || locked.invoiceGeneratedAt) return;
      const seller = await repo.seller(order.organizationId);
      const sequence = await repo.nextInvoiceNumber(order.organizationId);
      const number = `${invoicePrefix(seller?.slug ?? '')}-INV-${String(sequence).padStart(4, '0')}`;
      const at = clock.now();
      await repo.markInvoiceGenerated(order.id, number, at);
      const [wire] = await loadOrderWires(trx, [{ ...locked, invoiceGeneratedAt: at, modifiedAt: at }], options);
      await recordEvent(trx, { organizationId: order.organizationId, type: 'order.updated', data: wire, at });
    });
    return {};
  }

  function invoiceLink(order: Order): DocumentLink {
    if (!order.invoiceGeneratedAt)
      throw resourceNotFound('The invoice has not been generated yet; generate it with POST first.');
    return link('invoice', order);
  }

  function receiptLink(order: Order): DocumentLink {
    if (!SETTLED.has(order.status)) throw notEligible();
    return link('receipt', order);
  }

  return {
    merchant: {
      generateInvoice: async (actor: MerchantActor, id: string) => generate(await merchantOrder(actor, id)),
      invoice: async (actor: MerchantActor, id: string) => invoiceLink(await merchantOrder(actor, id)),
      receipt: async (actor: MerchantActor, id: string) => receiptLink(await merchantOrder(actor, id)),
    },
    customer: {
      generateInvoice: async (actor: CustomerActor, id: string) => generate(await customerOrder(actor, id)),
      invoice: async (actor: CustomerActor, id: string) => invoiceLink(await customerOrder(actor, id)),
      receipt: async (actor: CustomerActor, id: string) => receiptLink(await customerOrder(actor, id)),
    },

    /** The document behind a signed link; an unknown, forged or expired link is not found (or gone). */
    async document(kind: DocumentKind, orderId: string, token: string | undefined): Promise<OrderDocument> {
      const check = signer.check(token, kind, orderId, clock.now());
      if (check === 'expired') throw new DomainError(410, 'LinkExpired', 'This link has expired; ask for a new one.');
      if (check !== 'valid') throw resourceNotFound();
      const order = await ordersRepository(db).findById(orderId);
      if (!order) throw resourceNotFound();
      const repo = orderDocumentsRepository(db);
      const [items, seller, buyerEmail, invoiceNumber] = await Promise.all([
        ordersRepository(db).itemsOf([order.id]),
        repo.seller(order.organizationId),
        repo.buyerEmail(order.customerId),
        repo.invoiceDocumentNumber(order.id),
      ]);
      if (!seller || (kind === 'invoice' && !invoiceNumber)) throw resourceNotFound();
      return {
        kind,
        number: kind === 'invoice' ? invoiceNumber! : order.invoiceNumber,
        order,
        items: items.get(order.id) ?? [],
        seller,
        buyerEmail,
        issuedAt: kind === 'invoice' ? order.invoiceGeneratedAt! : order.createdAt,
      };
    },
  };
}

export type OrderDocumentsService = ReturnType<typeof createOrderDocumentsService>;
