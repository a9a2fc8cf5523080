import type { Knex } from 'knex';

// Checkouts and what confirming one creates: orders with their items, subscriptions, and later refunds. Amounts
// are integers in minor units. A checkout keeps its computed amounts so a read never recomputes against a catalog
// that may have changed since.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('checkouts', (t) => {
    t.uuid('id').primary();
    t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    // The buyer's handle on the checkout (public routes and the hosted page); unguessable.
    t.string('client_secret', 64).notNullable().unique();
    // open | expired | confirmed | succeeded | failed
    t.string('status', 16).notNullable();
    t.string('payment_processor', 16).notNullable();
    t.text('success_url').nullable();
    t.text('return_url').nullable();
    t.text('embed_origin').nullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.uuid('product_id').notNullable();
    t.uuid('product_price_id').notNullable();
    // JSON array of the product ids offered, in order.
    t.text('product_ids').notNullable();
    t.uuid('discount_id').nullable();
    t.boolean('allow_discount_codes').notNullable();
    t.boolean('require_billing_address').notNullable();
    // The amount the buyer chose for a custom price; null otherwise.
    t.bigInteger('custom_amount').nullable();
    t.string('currency', 3).notNullable();
    t.bigInteger('subtotal_amount').notNullable();
    t.bigInteger('discount_amount').notNullable();
    t.bigInteger('net_amount').notNullable();
    t.bigInteger('tax_amount').notNullable();
    t.bigInteger('total_amount').notNullable();
    t.uuid('customer_id').nullable();
    t.text('external_customer_id').nullable();
    t.text('customer_name').nullable();
    t.string('customer_email', 320).nullable();
    t.string('customer_ip_address', 64).nullable();
    t.text('customer_billing_name').nullable();
    // JSON Address
    t.text('customer_billing_address').nullable();
    t.text('customer_tax_id').nullable();
    t.boolean('is_business_customer').notNullable().defaultTo(false);
    // JSON objects
    t.text('metadata').notNullable();
    t.text('customer_metadata').notNullable();
    t.text('custom_field_data').notNullable();
    t.uuid('checkout_link_id').nullable();
    // What confirming produced.
    t.uuid('order_id').nullable();
    t.uuid('subscription_id').nullable();
    t.text('failure_reason').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('modified_at', { useTz: true }).nullable();
    t.index(['organization_id', 'created_at']);
    t.index(['status', 'expires_at']);
  });
  await knex.schema.createTable('subscriptions', (t) => {
    t.uuid('id').primary();
    t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.uuid('customer_id').notNullable();
    t.uuid('product_id').notNullable();
    t.uuid('product_price_id').notNullable();
    t.uuid('checkout_id').nullable();
    t.uuid('discount_id').nullable();
    // incomplete | incomplete_expired | trialing | active | past_due | canceled | unpaid
    t.string('status', 24).notNullable();
    t.bigInteger('amount').notNullable();
    t.string('currency', 3).notNullable();
    t.string('recurring_interval', 8).notNullable();
    t.integer('recurring_interval_count').notNullable();
    t.timestamp('current_period_start', { useTz: true }).notNullable();
    t.timestamp('current_period_end', { useTz: true }).notNullable();
    t.timestamp('trial_start', { useTz: true }).nullable();
    t.timestamp('trial_end', { useTz: true }).nullable();
    t.boolean('cancel_at_period_end').notNullable().defaultTo(false);
    t.timestamp('canceled_at', { useTz: true }).nullable();
    t.timestamp('started_at', { useTz: true }).nullable();
    t.timestamp('ends_at', { useTz: true }).nullable();
    t.timestamp('ended_at', { useTz: true }).nullable();
    t.string('customer_cancellation_reason', 32).nullable();
    t.text('customer_cancellation_comment').nullable();
    // For the renewal scheduler (a later issue): the kept payment method, how many periods were billed (repeating
    // discounts count them), and the dunning state.
    t.string('payment_processor', 16).notNullable();
    t.text('payment_method_reference').nullable();
    t.integer('billed_periods').notNullable().defaultTo(1);
    t.integer('renewal_attempts').notNullable().defaultTo(0);
    t.timestamp('next_renewal_attempt_at', { useTz: true }).nullable();
    // JSON objects
    t.text('metadata').notNullable();
    t.text('custom_field_data').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('modified_at', { useTz: true }).nullable();
    t.index(['organization_id', 'created_at']);
    t.index(['customer_id']);
    t.index(['status', 'current_period_end']);
  });
  await knex.schema.createTable('orders', (t) => {
    t.uuid('id').primary();
    t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    // pending | paid | refunded | partially_refunded
    t.string('status', 24).notNullable();
    // purchase | subscription_create | subscription_cycle | subscription_update
    t.string('billing_reason', 24).notNullable();
    t.uuid('customer_id').notNullable();
    t.uuid('product_id').nullable();
    t.uuid('product_price_id').nullable();
    t.uuid('discount_id').nullable();
    t.uuid('subscription_id').nullable();
    t.uuid('checkout_id').nullable();
    t.bigInteger('subtotal_amount').notNullable();
    t.bigInteger('discount_amount').notNullable();
    t.bigInteger('net_amount').notNullable();
    t.bigInteger('tax_amount').notNullable();
    t.bigInteger('total_amount').notNullable();
    t.bigInteger('refunded_amount').notNullable().defaultTo(0);
    t.bigInteger('refunded_tax_amount').notNullable().defaultTo(0);
    t.string('currency', 3).notNullable();
    t.text('billing_name').nullable();
    t.text('billing_address').nullable();
    t.string('invoice_number', 64).notNullable();
    // The processor's charge behind this order, so refunds go back through it.
    t.string('payment_processor', 16).notNullable();
    t.string('payment_reference', 128).nullable();
    t.text('metadata').notNullable();
    t.text('custom_field_data').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('modified_at', { useTz: true }).nullable();
    t.unique(['organization_id', 'invoice_number']);
    // One order per checkout: the last line of defence against a checkout confirmed twice.
    t.unique(['checkout_id']);
    t.index(['organization_id', 'created_at']);
    t.index(['customer_id']);
    t.index(['subscription_id']);
  });
  await knex.schema.createTable('order_items', (t) => {
    t.uuid('id').primary();
    t.uuid('order_id').notNullable().references('id').inTable('orders').onDelete('CASCADE');
    t.text('label').notNullable();
    t.bigInteger('amount').notNullable();
    t.bigInteger('tax_amount').notNullable();
    t.boolean('proration').notNullable().defaultTo(false);
    t.uuid('product_price_id').nullable();
    t.integer('position').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['order_id']);
  });
  await knex.schema.createTable('refunds', (t) => {
    t.uuid('id').primary();
    t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.uuid('order_id').notNullable().references('id').inTable('orders').onDelete('CASCADE');
    t.uuid('subscription_id').nullable();
    t.uuid('customer_id').notNullable();
    // pending | succeeded | failed | canceled
    t.string('status', 16).notNullable();
    t.string('reason', 32).notNullable();
    t.bigInteger('amount').notNullable();
    t.bigInteger('tax_amount').notNullable();
    t.string('currency', 3).notNullable();
    t.text('comment').nullable();
    t.boolean('revoke_benefits').notNullable().defaultTo(false);
    t.string('processor_reference', 128).nullable();
    t.text('metadata').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('modified_at', { useTz: true }).nullable();
    t.index(['organization_id', 'created_at']);
    t.index(['order_id']);
  });
  // Invoice numbers count up per organization: one row per organization, incremented by one upsert ... RETURNING
  // before the order's transaction (a fulfilment that fails afterwards leaves a gap, as a sequence would).
  await knex.schema.createTable('invoice_counters', (t) => {
    t.string('organization_id', 32).primary().references('id').inTable('organizations').onDelete('CASCADE');
    t.integer('last_number').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('invoice_counters');
  await knex.schema.dropTable('refunds');
  await knex.schema.dropTable('order_items');
  await knex.schema.dropTable('orders');
  await knex.schema.dropTable('subscriptions');
  await knex.schema.dropTable('checkouts');
}
