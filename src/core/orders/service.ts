import type { Clock } from '../kernel/clock.js';
import { fieldError, resourceNotFound } from '../polar-api/errors.js';
import type { Db } from '../database/index.js';
import { transaction } from '../database/index.js';
import { recordEvent } from '../kernel/outbox.js';
import type { Page } from '../kernel/pagination.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { authorize, organizationFilter } from '../polar-api/actor.js';
import type { MetadataQuery } from '../polar-api/metadata-query.js';
import type { EmbedOptions } from '../products/embedded.js';
import type { ReadCache } from '../cache/read-cache.js';
import type { OrderListQuery, OrderUpdateInput } from './inputs.js';
import type { Order } from './repository.js';
import { ordersRepository } from './repository.js';
import type { OrderWire } from './schemas.js';
import { loadOrderWires } from './loaders.js';

/** The merchant's orders API: list, read, and correct the invoice's name and address. */
export function createOrderService(deps: { db: Db; clock: Clock; baseUrl: string; readCache: ReadCache }) {
  const { db, clock } = deps;
  const options: EmbedOptions = { baseUrl: deps.baseUrl, readCache: deps.readCache };

  async function owned(actor: MerchantActor, id: string, mode: 'read' | 'write'): Promise<Order> {
    const order = await ordersRepository(db).findById(id);
    if (!order) throw resourceNotFound();
    authorize(actor, order.organizationId, mode);
    return order;
  }

  return {
    async list(actor: MerchantActor, query: OrderListQuery, metadata: MetadataQuery): Promise<Page<OrderWire>> {
      const organizationIds = organizationFilter(actor, query.organization_id);
      if (organizationIds.length === 0) return { items: [], pagination: { total_count: 0, max_page: 0 } };
      const page = await ordersRepository(db).list(
        {
          organizationIds,
          productIds: query.product_id,
          productBillingTypes: query.product_billing_type,
          discountIds: query.discount_id,
          customerIds: query.customer_id,
          externalCustomerIds: query.external_customer_id,
          checkoutIds: query.checkout_id,
          subscriptionIds: query.subscription_id,
          statuses: query.status,
          billingReasons: query.billing_reason,
          metadata: Object.keys(metadata).length > 0 ? metadata : undefined,
        },
        query,
      );
      return { items: await loadOrderWires(db, page.items, options), pagination: page.pagination };
    },

    async get(actor: MerchantActor, id: string): Promise<OrderWire> {
      const order = await owned(actor, id, 'read');
      return (await loadOrderWires(db, [order], options))[0]!;
    },

    /**
     * Polar's rule: the invoice's name and street address may be corrected, not the country or state, which
     * decided the tax charged.
     */
    async update(actor: MerchantActor, id: string, input: OrderUpdateInput): Promise<OrderWire> {
      await owned(actor, id, 'write');
      return transaction(db, async (trx) => {
        const current = (await ordersRepository(trx).lock(id))!;
        const next: Order = { ...current };
        if (input.billing_name !== undefined) next.billingName = input.billing_name;
        const address = input.billing_address;
        if (address) {
          const previous = current.billingAddress;
          if (previous && address.country !== previous.country)
            throw fieldError(['body', 'billing_address', 'country'], 'Country cannot be updated.');
          if (previous && (address.state ?? null) !== (previous.state ?? null))
            throw fieldError(['body', 'billing_address', 'state'], 'State cannot be updated.');
          next.billingAddress = address;
        }
        next.modifiedAt = clock.now();
        await ordersRepository(trx).updateBilling(id, {
          billingName: next.billingName,
          billingAddress: next.billingAddress,
          modifiedAt: next.modifiedAt,
        });
        const [wire] = await loadOrderWires(trx, [next], options);
        await recordEvent(trx, {
          organizationId: next.organizationId,
          type: 'order.updated',
          data: wire,
          at: next.modifiedAt,
        });
        return wire!;
      });
    },
  };
}

export type OrderService = ReturnType<typeof createOrderService>;
