import type { Clock } from '../kernel/clock.js';
import { resourceNotFound } from '../polar-api/errors.js';
import type { Db } from '../database/index.js';
import { transaction, type Transaction } from '../database/index.js';
import type { Page } from '../kernel/pagination.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { authorize, organizationFilter } from '../polar-api/actor.js';
import type { MetadataQuery } from '../polar-api/metadata-query.js';
import type { EmbedOptions } from '../products/embedded.js';
import type { ReadCache } from '../cache/read-cache.js';
import type { SubscriptionCancellationInput, SubscriptionListQuery } from './inputs.js';
import { changeSubscription } from './lifecycle.js';
import type { Subscription } from './repository.js';
import { subscriptionsRepository } from './repository.js';
import type { SubscriptionWire } from './schemas.js';
import { loadSubscriptionWires } from './loaders.js';

/** The merchant's subscriptions API: list, read, cancel or uncancel at the period end, revoke now. */
/** Changes a subscription's trial in the caller's transaction (renewals/trials.ts, which bills a trial ended now). */
export type TrialChange = (trx: Transaction, id: string, trialEnd: Date | 'now', now: Date) => Promise<Subscription>;

export function createSubscriptionService(deps: {
  db: Db;
  clock: Clock;
  baseUrl: string;
  readCache: ReadCache;
  changeTrial: TrialChange;
}) {
  const { db, clock } = deps;
  const options: EmbedOptions = { baseUrl: deps.baseUrl, readCache: deps.readCache };

  async function owned(actor: MerchantActor, id: string, mode: 'read' | 'write'): Promise<Subscription> {
    const subscription = await subscriptionsRepository(db).findById(id);
    if (!subscription) throw resourceNotFound();
    authorize(actor, subscription.organizationId, mode);
    return subscription;
  }

  async function wire(subscription: Subscription): Promise<SubscriptionWire> {
    return (await loadSubscriptionWires(db, [subscription], options))[0]!;
  }

  return {
    async list(
      actor: MerchantActor,
      query: SubscriptionListQuery,
      metadata: MetadataQuery,
    ): Promise<Page<SubscriptionWire>> {
      const organizationIds = organizationFilter(actor, query.organization_id);
      if (organizationIds.length === 0) return { items: [], pagination: { total_count: 0, max_page: 0 } };
      const page = await subscriptionsRepository(db).list(
        {
          organizationIds,
          productIds: query.product_id,
          customerIds: query.customer_id,
          externalCustomerIds: query.external_customer_id,
          discountIds: query.discount_id,
          statuses: query.status,
          active: query.active,
          cancelAtPeriodEnd: query.cancel_at_period_end,
          cancellationReasons: query.customer_cancellation_reason,
          metadata: Object.keys(metadata).length > 0 ? metadata : undefined,
        },
        query,
      );
      return { items: await loadSubscriptionWires(db, page.items, options), pagination: page.pagination };
    },

    async get(actor: MerchantActor, id: string): Promise<SubscriptionWire> {
      return wire(await owned(actor, id, 'read'));
    },

    /** PATCH: `cancel_at_period_end` true or false, `revoke: true`, or a new `trial_end` (plan changes and pauses:
     * subscription-changes/). */
    async update(actor: MerchantActor, id: string, input: SubscriptionCancellationInput): Promise<SubscriptionWire> {
      await owned(actor, id, 'write');
      if ('trial_end' in input) {
        const trialEnd = input.trial_end === 'now' ? 'now' : new Date(input.trial_end);
        return wire(await transaction(db, (trx) => deps.changeTrial(trx, id, trialEnd, clock.now())));
      }
      const change = 'revoke' in input ? 'revoke' : input.cancel_at_period_end ? 'cancel' : 'uncancel';
      const reason = { reason: input.customer_cancellation_reason, comment: input.customer_cancellation_comment };
      const saved = await transaction(db, (trx) => changeSubscription(trx, id, change, reason, clock.now(), options));
      return wire(saved);
    },

    /** DELETE: revoke now. */
    async revoke(actor: MerchantActor, id: string): Promise<SubscriptionWire> {
      await owned(actor, id, 'write');
      const saved = await transaction(db, (trx) => changeSubscription(trx, id, 'revoke', {}, clock.now(), options));
      return wire(saved);
    },
  };
}

export type SubscriptionService = ReturnType<typeof createSubscriptionService>;
