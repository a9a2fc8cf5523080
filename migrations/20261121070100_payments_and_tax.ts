import type { Knex } from 'knex';

// Tax rates per organization, and the audit trail of every attempt to move money (charges and refunds, failed or
// not) with the processor's own reference.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('tax_rates', (t) => {
    t.uuid('id').primary();
    t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    // ISO 3166-1 alpha-2, upper case.
    t.string('country', 2).notNullable();
    // '' means the whole country: an empty string, not NULL, so the unique index also covers country-wide rates.
    t.string('state', 16).notNullable().defaultTo('');
    t.integer('basis_points').notNullable();
    t.text('name').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('modified_at', { useTz: true }).nullable();
    t.unique(['organization_id', 'country', 'state']);
  });
  await knex.schema.createTable('payment_attempts', (t) => {
    t.uuid('id').primary();
    t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    // charge | refund
    t.string('kind', 8).notNullable();
    t.string('processor', 32).notNullable();
    t.string('processor_reference', 128).notNullable();
    // succeeded | failed
    t.string('status', 16).notNullable();
    t.bigInteger('amount').notNullable();
    t.string('currency', 3).notNullable();
    // What the money was for: a checkout's charge, a renewal, a refund of an order. Plain columns, no foreign keys,
    // so the trail survives whatever happens to the rows it points at.
    t.uuid('checkout_id').nullable();
    t.uuid('order_id').nullable();
    t.uuid('refund_id').nullable();
    t.uuid('customer_id').nullable();
    t.string('card_brand', 32).nullable();
    t.string('card_last4', 4).nullable();
    t.string('decline_reason', 64).nullable();
    t.text('decline_message').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['organization_id', 'created_at']);
    t.index(['checkout_id']);
    t.index(['order_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('payment_attempts');
  await knex.schema.dropTable('tax_rates');
}
