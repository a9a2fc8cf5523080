import type { BenefitWire } from '../benefits/schemas.js';
import type { BenefitType } from '../benefits/properties.js';
import type { Db } from '../database/index.js';
import type { SecretBox } from '../kernel/secret-box.js';
import { issueLicenseKey, type KeyTerms } from '../license-keys/keys.js';
import { licenseKeysRepository } from '../license-keys/repository.js';
import type { BenefitGrant, GrantProperties } from './repository.js';

export interface StrategyContext {
  trx: Db;
  grant: BenefitGrant;
  benefit: BenefitWire;
  at: Date;
}

/**
 * What granting came to: the grant's new properties, or a message saying what the customer must do first
 * (connect an account). The latter leaves the grant failed, with that message, and is not retried: the customer's
 * action brings the next attempt.
 */
export type GrantOutcome = { properties: GrantProperties } | { needsCustomerAction: string };

/**
 * How one benefit type is granted, revoked and updated (Polar's benefit/strategies/<type>). A strategy runs inside
 * the grant job's transaction. Throwing fails the job, which is rolled back and retried with backoff (scheduler);
 * so a strategy must be safe to run again for the same grant.
 */
export interface BenefitStrategy {
  grant(ctx: StrategyContext): Promise<GrantOutcome>;
  /** Answers the properties the revoked grant keeps. */
  revoke(ctx: StrategyContext): Promise<GrantProperties>;
  /** The benefit's properties changed under a live grant. */
  update(ctx: StrategyContext): Promise<GrantOutcome>;
  /** A renewal of the grant's subscription was paid (meter credits renew); answers the grant's new properties. */
  cycle?(ctx: StrategyContext): Promise<GrantProperties>;
}

export type Strategies = Partial<Record<BenefitType, BenefitStrategy>>;

/** custom: nothing to hand out; the benefit's note is what the customer sees (in the portal's grant). */
const customStrategy: BenefitStrategy = {
  grant: () => Promise.resolve({ properties: {} }),
  revoke: ({ grant }) => Promise.resolve(grant.properties),
  update: ({ grant }) => Promise.resolve({ properties: grant.properties }),
};

/**
 * license_keys: one key per grant, kept across a revoke and a later grant (Polar re-enables the same key), with
 * the benefit's prefix, expiry, activation and usage limits.
 */
function licenseKeysStrategy(box: SecretBox): BenefitStrategy {
  const terms = (benefit: BenefitWire) => benefit.properties as KeyTerms;
  const keyIdOf = (grant: BenefitGrant) =>
    typeof grant.properties.license_key_id === 'string' ? grant.properties.license_key_id : null;
  return {
    async grant({ trx, grant, benefit, at }) {
      const repo = licenseKeysRepository(trx);
      const keyId = keyIdOf(grant);
      const existing = keyId ? await repo.findById(keyId) : null;
      if (existing) {
        await repo.update(existing.id, { status: 'granted', modifiedAt: at });
        return { properties: { license_key_id: existing.id, display_key: existing.displayKey } };
      }
      const { key } = await issueLicenseKey(trx, box, {
        organizationId: grant.organizationId,
        customerId: grant.customerId,
        benefitId: grant.benefitId,
        terms: terms(benefit),
        at,
      });
      return { properties: { license_key_id: key.id, display_key: key.displayKey } };
    },
    async revoke({ trx, grant, at }) {
      const keyId = keyIdOf(grant);
      if (keyId) await licenseKeysRepository(trx).update(keyId, { status: 'revoked', modifiedAt: at });
      return grant.properties;
    },
    async update({ trx, grant, benefit, at }) {
      const keyId = keyIdOf(grant);
      const next = terms(benefit);
      if (keyId)
        await licenseKeysRepository(trx).update(keyId, {
          limitActivations: next.activations?.limit ?? null,
          limitUsage: next.limit_usage,
          modifiedAt: at,
        });
      return { properties: grant.properties };
    },
  };
}

/**
 * The strategies every daemon grants with. context.ts adds downloadables, GitHub and Discord where configured
 * (benefit-platforms/) and meter credits (metered-billing/credit-strategy.ts, which sits above meters). A benefit
 * type without one (GitHub or Discord without credentials) gets no grant: nothing is recorded that nothing could
 * honour.
 */
export function defaultStrategies(box: SecretBox): Strategies {
  return { custom: customStrategy, license_keys: licenseKeysStrategy(box) };
}
