import type { ReadCache } from '../cache/read-cache.js';
import { loadCustomerSubscriptionWires } from '../customer-portal/loaders.js';
import type { CustomerSubscriptionWire } from '../customer-portal/schemas.js';
import type { CustomerActor } from '../customers/sessions.js';
import type { Db } from '../database/index.js';
import type { Clock } from '../kernel/clock.js';
import { DomainError } from '../kernel/errors.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { authorize } from '../polar-api/actor.js';
import { notPermitted, resourceNotFound } from '../polar-api/errors.js';
import type { PaymentProcessor } from '../payments/processor.js';
import type { EmbedOptions } from '../products/embedded.js';
import type {
  CustomerSubscriptionChangeInput,
  CustomerSubscriptionUpdateInput,
  SubscriptionChangeInput,
} from '../subscriptions/inputs.js';
import { loadSubscriptionWires } from '../subscriptions/loaders.js';
import { subscriptionsRepository, type Subscription } from '../subscriptions/repository.js';
import type { SubscriptionWire } from '../subscriptions/schemas.js';
import { pause, resume } from './pause.js';
import { changePlan, clearPendingUpdate, organizationSettings, type ChangeDeps } from './plan.js';

/** Whether a portal PATCH body is a change of plan or a pause rather than a cancellation. */
export function isCustomerSubscriptionChange(
  input: CustomerSubscriptionUpdateInput,
): input is CustomerSubscriptionChangeInput {
  return 'product_id' in input || 'pause_at_period_end' in input || 'resume' in input || 'pending_update' in input;
}

/**
 * Changes of plan, pending updates, pauses and resumes, for the merchant (PATCH /v1/subscriptions/{id}) and, where
 * the organization's portal settings allow them, for the customer (PATCH /v1/customer-portal/subscriptions/{id}).
 */
export function createSubscriptionChangeService(deps: {
  db: Db;
  clock: Clock;
  processor: PaymentProcessor;
  baseUrl: string;
  readCache: ReadCache;
}) {
  const options: EmbedOptions = { baseUrl: deps.baseUrl, readCache: deps.readCache };
  const change: ChangeDeps = { ...deps, options };

  function apply(subscription: Subscription, input: SubscriptionChangeInput): Promise<Subscription> {
    if ('product_id' in input) return changePlan(change, subscription, input);
    if ('pause_at_period_end' in input) return pause(change, subscription, input);
    if ('resume' in input) return resume(change, subscription);
    return clearPendingUpdate(change, subscription);
  }

  return {
    async update(actor: MerchantActor, id: string, input: SubscriptionChangeInput): Promise<SubscriptionWire> {
      const subscription = await subscriptionsRepository(deps.db).findById(id);
      if (!subscription) throw resourceNotFound();
      authorize(actor, subscription.organizationId, 'write');
      const saved = await apply(subscription, input);
      return (await loadSubscriptionWires(deps.db, [saved], options))[0]!;
    },

    async updateForCustomer(
      actor: CustomerActor,
      id: string,
      input: CustomerSubscriptionChangeInput,
    ): Promise<CustomerSubscriptionWire> {
      const subscription = await subscriptionsRepository(deps.db).findById(id);
      if (!subscription || subscription.customerId !== actor.customer.id) throw resourceNotFound();
      const settings = await organizationSettings(deps.db, deps.readCache, subscription.organizationId);
      const portal = settings.customer_portal_settings.subscription;
      if ('product_id' in input || 'pending_update' in input) {
        if (!portal.update_plan || !settings.subscription_settings.allow_customer_updates)
          throw notPermitted('This organization does not let customers change their plan.');
      } else if (!portal.pause) {
        throw new DomainError(
          403,
          'PauseResumeNotAllowed',
          'This organization does not let customers pause or resume.',
        );
      }
      // The portal's product change takes the organization's default proration (it has no field for it).
      const saved = await apply(subscription, input);
      return (await loadCustomerSubscriptionWires(deps.db, [saved], options))[0]!;
    },
  };
}

export type SubscriptionChangeService = ReturnType<typeof createSubscriptionChangeService>;
