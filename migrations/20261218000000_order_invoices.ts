import type { Knex } from 'knex';

// Invoices as documents: an order's invoice is generated on request (Polar's POST /v1/orders/{id}/invoice) and takes
// a number from the organization's invoice sequence then, inside the generating transaction, so invoice numbers run
// without gaps (orders.invoice_number, taken before a purchase's transaction, may skip one when a purchase fails).

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('invoice_sequences', (t) => {
    t.string('organization_id', 32).primary().references('id').inTable('organizations').onDelete('CASCADE');
    t.integer('last_number').notNullable();
  });
  await knex.schema.alterTable('orders', (t) => {
    t.timestamp('invoice_generated_at', { useTz: true }).nullable();
    t.string('invoice_document_number', 64).nullable();
    t.unique(['organization_id', 'invoice_document_number']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('orders', (t) => {
    t.dropUnique(['organization_id', 'invoice_document_number']);
    t.dropColumn('invoice_document_number');
    t.dropColumn('invoice_generated_at');
  });
  await knex.schema.dropTable('invoice_sequences');
}
