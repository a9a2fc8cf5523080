import type { BenefitStrategy, StrategyContext } from '../benefit-grants/strategies.js';
import type { GrantProperties } from '../benefit-grants/repository.js';
import { customersRepository } from '../customers/repository.js';
import type { Db } from '../database/index.js';
import { recordSystemEvents } from '../events/system.js';
import { countBackfillBeforeReset } from '../meters/backfill-catch-up.js';
import { customerMeterFigures } from '../meters/customer-meters.js';
import { metersRepository } from '../meters/repository.js';
import { meterResetsRepository, type MeterCustomer } from '../meters/resets-repository.js';
import { subscriptionsRepository } from '../subscriptions/repository.js';
import { resetMeters } from './usage.js';

interface MeterCreditTerms {
  units: number;
  rollover: boolean;
  meter_id: string;
}

/** The grant's properties as Polar names them (BenefitGrantMeterCreditProperties). */
function creditedProperties(meterId: string, units: number, at: Date): GrantProperties {
  return { last_credited_meter_id: meterId, last_credited_units: units, last_credited_at: at.toISOString() };
}

async function customerOf(trx: Db, customerId: string): Promise<MeterCustomer | null> {
  return customersRepository(trx).findAnyById(customerId);
}

/** Adds `units` (negative: takes back) to the customer meter and records Polar's `meter.credited` system event. */
async function credit(trx: Db, customer: MeterCustomer, meterId: string, units: number, rollover: boolean, at: Date) {
  await meterResetsRepository(trx).credit(meterId, customer, units, at);
  await recordSystemEvents(trx, [
    {
      organizationId: customer.organizationId,
      customer,
      name: 'meter.credited',
      metadata: { meter_id: meterId, units, rollover },
      at,
    },
  ]);
}

/**
 * meter_credit (Polar's benefit/strategies/meter_credit): credits the benefit's units to the customer's meter on
 * grant; each paid renewal resets the meter unless a bill already did since the last credit, carries the credit left
 * at that reset over when the benefit rolls over (else it is gone), and credits the units again; a revoke takes the
 * last credit back. Balances are read from the customer meter's running row, never from events.
 */
export const meterCreditStrategy: BenefitStrategy = {
  async grant({ trx, grant, benefit, at }) {
    const terms = benefit.properties as MeterCreditTerms;
    const customer = await customerOf(trx, grant.customerId);
    if (!customer) return { properties: grant.properties };
    await credit(trx, customer, terms.meter_id, terms.units, false, at);
    return { properties: creditedProperties(terms.meter_id, terms.units, at) };
  },

  async revoke({ trx, grant, at }) {
    const meterId = grant.properties.last_credited_meter_id;
    const units = grant.properties.last_credited_units;
    const customer = await customerOf(trx, grant.customerId);
    if (customer && typeof meterId === 'string' && typeof units === 'number' && units > 0)
      await credit(trx, customer, meterId, -units, false, at);
    return grant.properties;
  },

  // New terms apply from the next credit (the next paid renewal), as in Polar.
  update: ({ grant }) => Promise.resolve({ properties: grant.properties }),

  async cycle(ctx: StrategyContext) {
    const { trx, grant, benefit, at } = ctx;
    const terms = benefit.properties as MeterCreditTerms;
    const subscription = grant.subscriptionId
      ? await subscriptionsRepository(trx).findById(grant.subscriptionId)
      : null;
    // The final order of a subscription that ended is paid like a renewal, but nothing renews.
    if (subscription?.endedAt) return grant.properties;
    const customer = await customerOf(trx, grant.customerId);
    if (!customer) return grant.properties;
    const resets = meterResetsRepository(trx);
    const lastCreditedAt =
      typeof grant.properties.last_credited_at === 'string' ? Date.parse(grant.properties.last_credited_at) : null;
    const { resetAt } = await resets.state(terms.meter_id, customer.id);
    if (lastCreditedAt !== null && (resetAt === null || resetAt <= lastCreditedAt)) {
      const meters = metersRepository(trx);
      await meters.lockOrganization(customer.organizationId, 'exclusive');
      const meter = await meters.findById(terms.meter_id);
      // The leftover that rolls over is figured on every event before the reset, backfilled or not.
      if (meter) await countBackfillBeforeReset(trx, customer, [meter], at);
      const figures = meter ? (await customerMeterFigures(trx, customer, [meter])).get(meter.id) : undefined;
      await resetMeters(
        trx,
        customer,
        [{ meterId: terms.meter_id, consumed: figures?.consumed ?? 0, credited: figures?.credited ?? 0 }],
        at,
      );
    }
    if (terms.rollover) {
      const carried = await resets.takeResetBalance(terms.meter_id, customer.id);
      if (carried > 0) await credit(trx, customer, terms.meter_id, carried, true, at);
    }
    await credit(trx, customer, terms.meter_id, terms.units, false, at);
    return creditedProperties(terms.meter_id, terms.units, at);
  },
};
