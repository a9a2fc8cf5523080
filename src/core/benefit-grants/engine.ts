import { randomUUID } from 'node:crypto';
import { benefitsRepository } from '../benefits/repository.js';
import type { BenefitWire } from '../benefits/schemas.js';
import type { BenefitType } from '../benefits/properties.js';
import { customersRepository } from '../customers/repository.js';
import { recordStateChanged, type ActiveSubscriptionsReader } from '../customers/state.js';
import { customerWire } from '../customers/wire.js';
import type { Db } from '../database/index.js';
import { noCrash, type CrashHook } from '../kernel/crash.js';
import { recordEvents, type OutboxEvent } from '../kernel/outbox.js';
import type { BenefitGrant, GrantProperties, Holder } from './repository.js';
import { benefitGrantsRepository } from './repository.js';
import type { Strategies, StrategyContext } from './strategies.js';
import { benefitGrantWebhookWire, isGranted } from './wire.js';

export type GrantEventType = 'created' | 'updated' | 'revoked' | 'cycled';

interface Change {
  grant: BenefitGrant;
  type: GrantEventType;
  previous?: GrantProperties | null;
}

/**
 * The grant engine's one path to a holder's grants: given what the holder now entitles its customer to, it grants
 * what is missing and revokes what is no longer due, through each benefit type's strategy, and announces each
 * change (`benefit_grant.*`, then one `customer.state_changed`). Running it again changes nothing.
 */
export function createGrantEngine(deps: {
  strategies: Strategies;
  activeSubscriptionsOf: ActiveSubscriptionsReader;
  /** Test-only: stops the process once a strategy granted, before the job commits (kernel/crash.ts). */
  crashAt?: CrashHook;
}) {
  const { strategies } = deps;
  const crashAt = deps.crashAt ?? noCrash;

  async function benefitsById(trx: Db, organizationId: string, ids: string[]): Promise<Map<string, BenefitWire>> {
    const wires = await benefitsRepository(trx).findByIds(organizationId, ids, { includeDeleted: true });
    return new Map(wires.map((wire) => [wire.id, wire]));
  }

  function strategyFor(benefit: BenefitWire) {
    return strategies[benefit.type as BenefitType] ?? null;
  }

  /** Records the changes' events and the customer's new state, in the job's transaction. */
  async function announce(trx: Db, customerId: string, changes: Change[], at: Date): Promise<void> {
    if (changes.length === 0) return;
    const customer = await customersRepository(trx).findAnyById(customerId);
    if (!customer) return;
    const benefits = await benefitsById(
      trx,
      customer.organizationId,
      changes.map((change) => change.grant.benefitId),
    );
    const buyer = customerWire(customer);
    const events: OutboxEvent[] = changes.map((change) => ({
      organizationId: customer.organizationId,
      type: `benefit_grant.${change.type}`,
      data: benefitGrantWebhookWire(
        change.grant,
        buyer,
        benefits.get(change.grant.benefitId)!,
        change.previous ?? null,
      ),
      at,
    }));
    await recordEvents(trx, events);
    await recordStateChanged(trx, customerId, at, deps.activeSubscriptionsOf);
  }

  async function grantOne(trx: Db, grant: BenefitGrant, benefit: BenefitWire, at: Date): Promise<Change | null> {
    const strategy = strategyFor(benefit);
    if (!strategy) return null;
    const context: StrategyContext = { trx, grant, benefit, at };
    const outcome = await strategy.grant(context);
    if ('needsCustomerAction' in outcome) {
      const failed: BenefitGrant = {
        ...grant,
        error: {
          message: outcome.needsCustomerAction,
          type: 'BenefitActionRequiredError',
          timestamp: at.toISOString(),
        },
        modifiedAt: at,
      };
      await benefitGrantsRepository(trx).save(failed);
      return null;
    }
    crashAt('grant.granted');
    const granted: BenefitGrant = {
      ...grant,
      grantedAt: at,
      revokedAt: null,
      error: null,
      properties: outcome.properties,
      modifiedAt: at,
    };
    await benefitGrantsRepository(trx).save(granted);
    return { grant: granted, type: 'created' };
  }

  async function revokeOne(trx: Db, grant: BenefitGrant, benefit: BenefitWire | undefined, at: Date): Promise<Change> {
    const strategy = benefit ? strategyFor(benefit) : null;
    const properties = strategy ? await strategy.revoke({ trx, grant, benefit: benefit!, at }) : grant.properties;
    const revoked: BenefitGrant = { ...grant, grantedAt: null, revokedAt: at, properties, modifiedAt: at };
    await benefitGrantsRepository(trx).save(revoked);
    return { grant: revoked, type: 'revoked' };
  }

  return {
    /**
     * `entitled`: true grants the product's live benefits (and revokes the others); false revokes everything;
     * null leaves the holder's grants as they are (a subscription past due, inside its grace period).
     */
    async syncHolder(trx: Db, holder: Holder, entitled: boolean | null, at: Date): Promise<void> {
      if (entitled === null) return;
      const repo = benefitGrantsRepository(trx);
      const [existing, offered] = await Promise.all([
        repo.forHolder(holder.id),
        entitled && holder.productId ? repo.productBenefits(holder.productId) : Promise.resolve([]),
      ]);
      const due = offered.filter((benefit) => strategies[benefit.type as BenefitType]);
      const dueIds = new Set(due.map((benefit) => benefit.id));
      const benefits = await benefitsById(trx, holder.organizationId, [
        ...dueIds,
        ...existing.map((grant) => grant.benefitId),
      ]);
      const byBenefit = new Map(existing.map((grant) => [grant.benefitId, grant]));
      const changes: Change[] = [];
      for (const grant of existing) {
        if (isGranted(grant) && !dueIds.has(grant.benefitId))
          changes.push(await revokeOne(trx, grant, benefits.get(grant.benefitId), at));
      }
      for (const { id } of due) {
        let grant = byBenefit.get(id);
        if (grant && isGranted(grant)) continue;
        // A grant that needs the customer to act waits for that action, not for the next sync.
        if (grant?.error?.type === 'BenefitActionRequiredError') continue;
        if (!grant) {
          grant = {
            id: randomUUID(),
            organizationId: holder.organizationId,
            customerId: holder.customerId,
            benefitId: id,
            subscriptionId: holder.kind === 'subscription' ? holder.id : null,
            orderId: holder.kind === 'order' ? holder.id : null,
            grantedAt: null,
            revokedAt: null,
            error: null,
            properties: {},
            createdAt: at,
            modifiedAt: null,
          };
          await repo.insert(grant);
        }
        const change = await grantOne(trx, grant, benefits.get(id)!, at);
        if (change) changes.push(change);
      }
      await announce(trx, holder.customerId, changes, at);
    },

    /** The benefit's properties changed: the strategy's update, then `benefit_grant.updated`. */
    async updateGrant(trx: Db, grantId: string, at: Date): Promise<void> {
      const grant = await benefitGrantsRepository(trx).findById(grantId);
      if (!grant || !isGranted(grant)) return;
      const benefit = (await benefitsById(trx, grant.organizationId, [grant.benefitId])).get(grant.benefitId);
      const strategy = benefit ? strategyFor(benefit) : null;
      if (!benefit || !strategy) return;
      const outcome = await strategy.update({ trx, grant, benefit, at });
      if ('needsCustomerAction' in outcome) return;
      const updated: BenefitGrant = { ...grant, properties: outcome.properties, modifiedAt: at };
      await benefitGrantsRepository(trx).save(updated);
      await announce(trx, grant.customerId, [{ grant: updated, type: 'updated', previous: grant.properties }], at);
    },

    /**
     * A renewal paid: each live grant of the subscription cycled through its strategy (meter credits credit again),
     * then `benefit_grant.cycled` for each.
     */
    async cycleHolder(trx: Db, subscriptionId: string, customerId: string, at: Date): Promise<void> {
      const live = (await benefitGrantsRepository(trx).forHolder(subscriptionId)).filter(isGranted);
      const benefits = live.length
        ? await benefitsById(
            trx,
            live[0]!.organizationId,
            live.map((grant) => grant.benefitId),
          )
        : new Map<string, BenefitWire>();
      const changes: Change[] = [];
      for (const grant of live) {
        const benefit = benefits.get(grant.benefitId);
        const strategy = benefit ? strategyFor(benefit) : null;
        if (!benefit || !strategy?.cycle) {
          changes.push({ grant, type: 'cycled' });
          continue;
        }
        const properties = await strategy.cycle({ trx, grant, benefit, at });
        const cycled: BenefitGrant = { ...grant, properties, modifiedAt: at };
        await benefitGrantsRepository(trx).save(cycled);
        changes.push({ grant: cycled, type: 'cycled', previous: grant.properties });
      }
      await announce(trx, customerId, changes, at);
    },
  };
}

export type GrantEngine = ReturnType<typeof createGrantEngine>;
