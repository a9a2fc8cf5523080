import { revokeOrderGrants } from '../grant-triggers/triggers.js';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../kernel/clock.js';
import type { CrashHook } from '../kernel/crash.js';
import { fieldError } from '../polar-api/errors.js';
import type { Db } from '../database/index.js';
import { transaction } from '../database/index.js';
import { DomainError } from '../kernel/errors.js';
import { formatAmount, proportion } from '../kernel/money.js';
import { recordEvent } from '../kernel/outbox.js';
import type { Page } from '../kernel/pagination.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { authorize, organizationFilter, readableOrganizationIds } from '../polar-api/actor.js';
import type { Order } from '../orders/repository.js';
import type { OrderStatus } from '../orders/schemas.js';
import { ordersRepository } from '../orders/repository.js';
import { loadOrderWires } from '../orders/loaders.js';
import { recordRefundAttempt } from '../payments/attempts.js';
import type { PaymentProcessor, RefundResult } from '../payments/processor.js';
import type { EmbedOptions } from '../products/embedded.js';
import type { ReadCache } from '../cache/read-cache.js';
import { applyLifecycle, changeSubscription } from '../subscriptions/lifecycle.js';
import { subscriptionsRepository } from '../subscriptions/repository.js';
import type { Refund } from './repository.js';
import { refundsRepository } from './repository.js';
import type { RefundCreateInput, RefundListQuery, RefundReason, RefundWire } from './schemas.js';
import { refundWire } from './wire.js';

/**
 * Refunds. The amount is Polar's: the net (pre-tax) amount to give back, never more than what is left of the
 * order's net amount; the tax refunded with it is the order's tax in proportion (the last refund takes exactly
 * what is left, so a full refund returns all the tax), and the processor gives back both.
 *
 * Concurrency: the refund is first written `pending` in a transaction holding the order's row lock, after checking
 * the amount against the order's refunded amount plus every refund still pending on it. So N concurrent refunds
 * are checked one after another and never exceed the order, even while their processor calls are in flight
 * outside any transaction. The outcome is written in a second locked transaction: success moves the amount into
 * the order's `refunded_amount`; a failure marks the refund failed, which releases its reservation.
 */
export function createRefundService(deps: {
  db: Db;
  clock: Clock;
  baseUrl: string;
  readCache: ReadCache;
  processor: PaymentProcessor;
  crashAt: CrashHook;
}) {
  const { db, clock, processor, crashAt } = deps;
  const options: EmbedOptions = { baseUrl: deps.baseUrl, readCache: deps.readCache };

  /** Validates and reserves the refund under the order's lock; returns it with the order. */
  async function reserve(actor: MerchantActor, input: RefundCreateInput): Promise<{ refund: Refund; order: Order }> {
    return transaction(db, async (trx) => {
      const order = await ordersRepository(trx).lock(input.order_id);
      if (!order || !readableOrganizationIds(actor).includes(order.organizationId))
        throw fieldError(['body', 'order_id'], 'Order not found.');
      authorize(actor, order.organizationId, 'write');
      if (order.status === 'pending') throw fieldError(['body', 'order_id'], 'The order is not paid.');
      if (order.status === 'refunded')
        throw new DomainError(403, 'RefundedAlready', 'Order is already fully refunded.');
      const pending = await refundsRepository(trx).pendingTotals(order.id);
      const refundable = order.netAmount - order.refundedAmount - pending.amount;
      const refundableTax = order.taxAmount - order.refundedTaxAmount - pending.taxAmount;
      if (input.amount > refundable) {
        throw fieldError(
          ['body', 'amount'],
          `Refund amount exceeds the refundable amount of the order (${formatAmount(Math.max(refundable, 0), order.currency)}).`,
          'value_error',
        );
      }
      if (!order.paymentReference) throw fieldError(['body', 'order_id'], 'The order has no payment to refund.');
      const taxAmount =
        input.amount === refundable
          ? refundableTax
          : Math.min(proportion(input.amount, order.taxAmount, order.netAmount), refundableTax);
      const at = clock.now();
      const refund: Refund = {
        id: randomUUID(),
        organizationId: order.organizationId,
        orderId: order.id,
        subscriptionId: order.subscriptionId,
        customerId: order.customerId,
        status: 'pending',
        reason: input.reason as RefundReason,
        amount: input.amount,
        taxAmount: Math.max(taxAmount, 0),
        currency: order.currency,
        comment: input.comment ?? null,
        // Stored as asked. One-time purchases' benefit grants do not exist yet; for a subscription's order it
        // revokes the subscription once the money is back (see settle).
        revokeBenefits: input.revoke_benefits,
        processorReference: null,
        metadata: input.metadata ?? {},
        createdAt: at,
        modifiedAt: null,
      };
      await refundsRepository(trx).insert(refund);
      await recordEvent(trx, {
        organizationId: refund.organizationId,
        type: 'refund.created',
        data: refundWire(refund),
        at,
      });
      return { refund, order };
    });
  }

  /** Writes the processor's answer: the money is counted on the order, or the reservation is released. */
  async function settle(refund: Refund, result: RefundResult): Promise<Refund> {
    return transaction(db, async (trx) => {
      const at = clock.now();
      const order = (await ordersRepository(trx).lock(refund.orderId))!;
      const status = result.status === 'succeeded' ? 'succeeded' : 'failed';
      const settled: Refund = { ...refund, status, processorReference: result.processorReference, modifiedAt: at };
      const applied = await refundsRepository(trx).settle(refund.id, {
        status,
        processorReference: result.processorReference,
        modifiedAt: at,
      });
      // Settled already (by the request, or by a reconciler after the request outlived the lease): its outcome stands.
      if (!applied) return (await refundsRepository(trx).findById(refund.id))!;
      await recordRefundAttempt(trx, {
        organizationId: refund.organizationId,
        processor: order.paymentProcessor,
        amount: refund.amount + refund.taxAmount,
        currency: refund.currency,
        orderId: order.id,
        checkoutId: order.checkoutId,
        refundId: refund.id,
        customerId: refund.customerId,
        result,
        at,
      });
      await recordEvent(trx, {
        organizationId: refund.organizationId,
        type: 'refund.updated',
        data: refundWire(settled),
        at,
      });
      if (status === 'failed') return settled;

      const refundedAmount = order.refundedAmount + refund.amount;
      const orderStatus: OrderStatus = refundedAmount >= order.netAmount ? 'refunded' : 'partially_refunded';
      const next: Order = {
        ...order,
        refundedAmount,
        refundedTaxAmount: order.refundedTaxAmount + refund.taxAmount,
        status: orderStatus,
        modifiedAt: at,
      };
      await ordersRepository(trx).updateRefunds(order.id, {
        refundedAmount: next.refundedAmount,
        refundedTaxAmount: next.refundedTaxAmount,
        status: orderStatus,
        modifiedAt: at,
      });
      if (refund.revokeBenefits && order.subscriptionId) await revokeSubscription(trx, order.subscriptionId, at);
      else if (refund.revokeBenefits) await revokeOrderGrants(trx, order.id, at);
      const [wire] = await loadOrderWires(trx, [next], options);
      await recordEvent(trx, { organizationId: order.organizationId, type: 'order.updated', data: wire, at });
      await recordEvent(trx, { organizationId: order.organizationId, type: 'order.refunded', data: wire, at });
      return settled;
    });
  }

  /**
   * Polar revokes the subscription behind a refunded order when asked to revoke benefits (a subscription's benefits
   * go with the subscription). One that has already ended stays as it is.
   */
  async function revokeSubscription(trx: Db, subscriptionId: string, at: Date): Promise<void> {
    const current = await subscriptionsRepository(trx).lock(subscriptionId);
    if (!current) return;
    try {
      applyLifecycle(current, 'revoke', {}, at);
    } catch {
      return;
    }
    await changeSubscription(trx, subscriptionId, 'revoke', {}, at, options);
  }

  return {
    async create(actor: MerchantActor, input: RefundCreateInput): Promise<RefundWire> {
      const { refund, order } = await reserve(actor, input);
      crashAt('refund.reserved');
      let result: RefundResult;
      try {
        result = await processor.refund(order.paymentReference!, {
          amount: refund.amount + refund.taxAmount,
          currency: refund.currency,
          reference: refund.id,
        });
      } catch (error) {
        // The processor could not be asked: nothing moved, so the reservation goes back before the error surfaces.
        await settle(refund, {
          status: 'failed',
          processorReference: `unreachable:${refund.id}`,
          failureReason: 'processor_unreachable',
        });
        throw error;
      }
      crashAt('refund.processed');
      const settled = await settle(refund, result);
      if (result.status === 'failed') {
        throw new DomainError(
          400,
          'RefundFailed',
          `The payment processor refused the refund (${result.failureReason}); nothing was refunded.`,
        );
      }
      return refundWire(settled);
    },

    /**
     * Settles refunds whose request died between the reservation and the outcome: each one left `pending` longer
     * than `leaseMs` is claimed by one reconciler and settled with the processor's own record under the refund's
     * key, its id (`succeeded` counts the money on the order; `failed` releases the reservation). A refund the
     * processor has no record of was never sent: the reconciler sends it under the same key, so the request, should
     * it wake up and send it too, gets the same answer and no money moves twice. Returns how many were claimed; one
     * that cannot be settled now stays claimed until the lease runs out.
     */
    async reconcile(leaseMs: number, limit: number, onError: (error: unknown, refundId: string) => void) {
      const now = clock.now();
      const claimed = await refundsRepository(db).claimStale(now, new Date(now.getTime() - leaseMs), limit);
      for (const refund of claimed) {
        await (async () => {
          const order = (await ordersRepository(db).findById(refund.orderId))!;
          const result =
            (await processor.findRefund(refund.id)) ??
            (await processor.refund(order.paymentReference!, {
              amount: refund.amount + refund.taxAmount,
              currency: refund.currency,
              reference: refund.id,
            }));
          await settle(refund, result);
        })().catch((error: unknown) => onError(error, refund.id));
      }
      return claimed.length;
    },

    async list(actor: MerchantActor, query: RefundListQuery): Promise<Page<RefundWire>> {
      const organizationIds = organizationFilter(actor, query.organization_id);
      if (organizationIds.length === 0) return { items: [], pagination: { total_count: 0, max_page: 0 } };
      const page = await refundsRepository(db).list(
        {
          organizationIds,
          ids: query.id,
          orderIds: query.order_id,
          subscriptionIds: query.subscription_id,
          customerIds: query.customer_id,
          externalCustomerIds: query.external_customer_id,
          succeeded: query.succeeded,
        },
        query,
      );
      return { items: page.items.map(refundWire), pagination: page.pagination };
    },
  };
}

export type RefundService = ReturnType<typeof createRefundService>;
