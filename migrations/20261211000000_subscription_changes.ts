import type { Knex } from 'knex';

// Plan changes, proration and pauses (issue 17). A pause is three columns on the subscription, shown on its wire
// (Polar's `pause_at_period_end`, `paused_at`, `resumes_at`). `period_anchor` is where the period count starts again
// when a change restarts the billing period (a change of interval, a resume): the cycle counts `billed_periods` from
// it; null means from the start (or the trial's end) as before. A `next_period` plan change waits in
// `subscription_pending_updates` (Polar's PendingSubscriptionUpdate, at most one per subscription) until the cycle
// applies it. Proration credits and debits wait in `subscription_proration_entries` until an order carries them: the
// `subscription_update` order of an invoiced change at once, or the next cycle order (then `billed_at` is set and
// `order_id` stays null, since the cycle builds its order after the hooks have run).

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('subscriptions', (t) => {
    t.boolean('pause_at_period_end').notNullable().defaultTo(false);
    t.timestamp('paused_at', { useTz: true }).nullable();
    t.timestamp('resumes_at', { useTz: true }).nullable();
    t.timestamp('period_anchor', { useTz: true }).nullable();
  });
  await knex.schema.createTable('subscription_pending_updates', (t) => {
    t.uuid('id').primary();
    t.uuid('subscription_id').notNullable().unique().references('id').inTable('subscriptions').onDelete('CASCADE');
    t.uuid('product_id').notNullable();
    t.uuid('product_price_id').notNullable();
    t.timestamp('applies_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('modified_at', { useTz: true }).nullable();
  });
  await knex.schema.createTable('subscription_proration_entries', (t) => {
    t.uuid('id').primary();
    t.uuid('subscription_id').notNullable().references('id').inTable('subscriptions').onDelete('CASCADE');
    t.string('label', 300).notNullable();
    // Signed minor units in the subscription's currency: a credit (unused time of the plan left) is negative.
    t.bigInteger('amount').notNullable();
    t.string('currency', 3).notNullable();
    t.uuid('order_id').nullable();
    t.timestamp('billed_at', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    // The cycle's hook reads the entries still waiting for an order: by subscription, among the unbilled.
    t.index(['subscription_id', 'billed_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('subscription_proration_entries');
  await knex.schema.dropTable('subscription_pending_updates');
  for (const column of ['period_anchor', 'resumes_at', 'paused_at', 'pause_at_period_end'])
    await knex.raw(`ALTER TABLE subscriptions DROP COLUMN ${column}`);
}
