import type { Knex } from 'knex';

// The cards customers keep for later charges (Polar's PaymentMethod): saved by a subscription's checkout or added
// in the customer portal. A subscription names the method it bills.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('payment_methods', (t) => {
    t.uuid('id').primary();
    t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.uuid('customer_id').notNullable().references('id').inTable('customers').onDelete('CASCADE');
    t.string('processor', 32).notNullable();
    // The processor's handle for the kept card (what `chargeSavedMethod` takes); never shown on the wire.
    t.string('processor_reference', 128).notNullable();
    // card (the only type the sandbox keeps)
    t.string('type', 16).notNullable();
    t.string('brand', 32).notNullable();
    t.string('last4', 4).notNullable();
    t.integer('exp_month').notNullable();
    t.integer('exp_year').notNullable();
    t.boolean('is_default').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('modified_at', { useTz: true }).nullable();
    t.unique(['processor', 'processor_reference']);
    t.index(['customer_id', 'created_at']);
  });
  // At most one default per customer, on both dialects; setting a new one clears the old one first.
  await knex.raw('CREATE UNIQUE INDEX payment_methods_one_default ON payment_methods (customer_id) WHERE is_default');
  await knex.schema.alterTable('subscriptions', (t) => {
    // Which of the customer's methods the subscription bills. `payment_method_reference` keeps that method's processor
    // reference beside it, so a renewal charges without a join; both change together (payment-methods/billing.ts).
    // Subscriptions from before this migration keep only the reference.
    t.uuid('payment_method_id').nullable();
    t.index(['payment_method_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('subscriptions', (t) => {
    t.dropIndex(['payment_method_id']);
  });
  await knex.raw('ALTER TABLE subscriptions DROP COLUMN payment_method_id');
  await knex.raw('DROP INDEX IF EXISTS payment_methods_one_default');
  await knex.schema.dropTable('payment_methods');
}
