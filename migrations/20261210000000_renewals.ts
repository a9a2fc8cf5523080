import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

/**
 * Renewals and dunning (src/core/renewals): when a subscription went past due, and a credit left over from a cycle
 * order whose credits exceeded its charges. Every live subscription gets its cycle job (the cycle now also ends a
 * subscription set to cancel, so the separate period-end jobs are folded into it).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('subscriptions', (t) => {
    t.timestamp('past_due_at', { useTz: true }).nullable();
    // Minor units owed to the customer, taken off the next cycle order (an order total never goes below 0).
    t.integer('carried_credit').notNullable().defaultTo(0);
  });
  await knex.schema.alterTable('checkouts', (t) => {
    // The checkout's own trial (set by the merchant or copied from its link), overriding the product's; allow_trial
    // false (the buyer or merchant declining it) turns any trial off.
    t.string('trial_interval', 8).nullable();
    t.integer('trial_interval_count').nullable();
    t.boolean('allow_trial').nullable();
  });
  // One trial per person (normalized e-mail) per organization and product, when the organization prevents trial abuse.
  await knex.schema.createTable('trial_redemptions', (t) => {
    t.uuid('id').primary();
    t.string('organization_id', 64).notNullable();
    t.uuid('product_id').notNullable();
    t.string('normalized_email', 320).notNullable();
    t.uuid('subscription_id').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.unique(['organization_id', 'product_id', 'normalized_email']);
  });
  const live = (await knex('subscriptions')
    .whereIn('status', ['trialing', 'active', 'past_due'])
    .whereNull('ended_at')
    .select('id', 'status', 'current_period_end', 'trial_end')) as Array<Record<string, unknown>>;
  const now = new Date();
  for (let start = 0; start < live.length; start += 500) {
    const rows = live.slice(start, start + 500).map((row) => {
      const due = row.status === 'trialing' && row.trial_end ? row.trial_end : row.current_period_end;
      return {
        id: randomUUID(),
        kind: 'subscription.cycle',
        subject_id: row.id,
        due_at: due,
        run_at: due,
        attempts: 0,
        created_at: now,
      };
    });
    await knex('scheduled_jobs').insert(rows).onConflict(['kind', 'subject_id', 'due_at']).ignore();
  }
  await knex('scheduled_jobs').where({ kind: 'subscription.cancel_at_period_end' }).whereNull('claimed_by').del();
}

export async function down(knex: Knex): Promise<void> {
  await knex('scheduled_jobs').where({ kind: 'subscription.cycle' }).del();
  await knex.schema.dropTableIfExists('trial_redemptions');
  await knex.schema.alterTable('checkouts', (t) => {
    t.dropColumn('allow_trial');
    t.dropColumn('trial_interval_count');
    t.dropColumn('trial_interval');
  });
  await knex.schema.alterTable('subscriptions', (t) => {
    t.dropColumn('carried_credit');
    t.dropColumn('past_due_at');
  });
}
