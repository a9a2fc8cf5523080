import type { CustomerActor } from '../customers/sessions.js';
import type { Clock } from '../kernel/clock.js';
import { resourceNotFound } from '../polar-api/errors.js';
import type { Db } from '../database/index.js';
import { transaction } from '../database/index.js';
import type { Page } from '../kernel/pagination.js';
import { ordersRepository } from '../orders/repository.js';
import type { EmbedOptions } from '../products/embedded.js';
import type { ReadCache } from '../cache/read-cache.js';
import type { CustomerSubscriptionCancelInput } from '../subscriptions/inputs.js';
import { changeSubscription } from '../subscriptions/lifecycle.js';
import type { Subscription } from '../subscriptions/repository.js';
import { subscriptionsRepository } from '../subscriptions/repository.js';
import { loadSubscriptionWires } from '../subscriptions/loaders.js';
import { recordEvent } from '../kernel/outbox.js';
import type {
  CustomerOrderListQuery,
  CustomerOrderWire,
  CustomerSubscriptionListQuery,
  CustomerSubscriptionWire,
} from './schemas.js';
import { loadCustomerOrderWires, loadCustomerSubscriptionWires } from './loaders.js';

/**
 * The customer portal's orders, subscriptions and benefit grants. Every read is narrowed to the signed-in customer,
 * so another customer's order or subscription is simply not found.
 */
export function createCustomerPortalService(deps: { db: Db; clock: Clock; baseUrl: string; readCache: ReadCache }) {
  const { db, clock } = deps;
  const options: EmbedOptions = { baseUrl: deps.baseUrl, readCache: deps.readCache };
  const scope = (actor: CustomerActor) => ({
    organizationIds: [actor.customer.organizationId],
    customerIds: [actor.customer.id],
  });

  async function ownSubscription(actor: CustomerActor, id: string): Promise<Subscription> {
    const subscription = await subscriptionsRepository(db).findById(id);
    if (!subscription || subscription.customerId !== actor.customer.id) throw resourceNotFound();
    return subscription;
  }

  async function subscriptionWire(subscription: Subscription): Promise<CustomerSubscriptionWire> {
    return (await loadCustomerSubscriptionWires(db, [subscription], options))[0]!;
  }

  /** The portal's cancel, uncancel and reason update, on the customer's own subscription only. */
  async function change(
    actor: CustomerActor,
    id: string,
    input: CustomerSubscriptionCancelInput,
  ): Promise<CustomerSubscriptionWire> {
    const current = await ownSubscription(actor, id);
    const reason = { reason: input.cancellation_reason, comment: input.cancellation_comment };
    const saved = await transaction(db, async (trx) => {
      if (input.cancel_at_period_end === true)
        return changeSubscription(trx, id, 'cancel', reason, clock.now(), options);
      if (input.cancel_at_period_end === false)
        return changeSubscription(trx, id, 'uncancel', reason, clock.now(), options);
      // Neither: only the reason and comment of a subscription already set to cancel change.
      const locked = (await subscriptionsRepository(trx).lock(id)) ?? current;
      if (
        !locked.cancelAtPeriodEnd ||
        (input.cancellation_reason === undefined && input.cancellation_comment === undefined)
      )
        return locked;
      const next: Subscription = {
        ...locked,
        customerCancellationReason:
          input.cancellation_reason !== undefined ? input.cancellation_reason : locked.customerCancellationReason,
        customerCancellationComment:
          input.cancellation_comment !== undefined ? input.cancellation_comment : locked.customerCancellationComment,
        modifiedAt: clock.now(),
      };
      await subscriptionsRepository(trx).save(next);
      const [wire] = await loadSubscriptionWires(trx, [next], options);
      await recordEvent(trx, {
        organizationId: next.organizationId,
        type: 'subscription.updated',
        data: wire,
        at: next.modifiedAt!,
      });
      return next;
    });
    return subscriptionWire(saved);
  }

  return {
    async listOrders(actor: CustomerActor, query: CustomerOrderListQuery): Promise<Page<CustomerOrderWire>> {
      const page = await ordersRepository(db).list(
        {
          ...scope(actor),
          productIds: query.product_id,
          productBillingTypes: query.product_billing_type,
          subscriptionIds: query.subscription_id,
        },
        query,
      );
      return { items: await loadCustomerOrderWires(db, page.items, options), pagination: page.pagination };
    },

    async getOrder(actor: CustomerActor, id: string): Promise<CustomerOrderWire> {
      const order = await ordersRepository(db).findById(id);
      if (!order || order.customerId !== actor.customer.id) throw resourceNotFound();
      return (await loadCustomerOrderWires(db, [order], options))[0]!;
    },

    async listSubscriptions(
      actor: CustomerActor,
      query: CustomerSubscriptionListQuery,
    ): Promise<Page<CustomerSubscriptionWire>> {
      const page = await subscriptionsRepository(db).list(
        { ...scope(actor), productIds: query.product_id, active: query.active },
        query,
      );
      return { items: await loadCustomerSubscriptionWires(db, page.items, options), pagination: page.pagination };
    },

    async getSubscription(actor: CustomerActor, id: string): Promise<CustomerSubscriptionWire> {
      return subscriptionWire(await ownSubscription(actor, id));
    },

    updateSubscription: change,

    /** Polar's portal DELETE: cancel at the end of the period (the customer keeps what they paid for). */
    async cancelSubscription(actor: CustomerActor, id: string): Promise<CustomerSubscriptionWire> {
      return change(actor, id, { cancel_at_period_end: true });
    },
  };
}

export type CustomerPortalService = ReturnType<typeof createCustomerPortalService>;
