import type { Knex } from 'knex';

// Customers of a merchant organization (Polar's Customer) and the short-lived sessions that let one of them into
// the customer portal.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('customers', (t) => {
    t.uuid('id').primary();
    t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.string('type', 16).notNullable();
    t.text('external_id').nullable();
    // Lower-cased on write, so equality is Polar's case-insensitive comparison on both dialects. Null only for teams.
    t.string('email', 320).nullable();
    t.boolean('email_verified').notNullable();
    t.string('name', 256).nullable();
    t.string('billing_name', 256).nullable();
    // JSON: Polar's Address, without the null keys.
    t.text('billing_address').nullable();
    // JSON: [value, format].
    t.text('tax_id').nullable();
    t.string('locale', 35).nullable();
    // JSON object.
    t.text('metadata').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('modified_at', { useTz: true }).nullable();
    t.timestamp('deleted_at', { useTz: true }).nullable();
    t.index(['organization_id', 'created_at']);
  });
  // Partial unique indexes (same syntax on SQLite and PostgreSQL): a deleted customer frees its e-mail address and
  // external id, and two concurrent creations of the same address cannot both commit.
  await knex.raw(
    'CREATE UNIQUE INDEX customers_live_email_unique ON customers (organization_id, email) WHERE deleted_at IS NULL',
  );
  await knex.raw(
    'CREATE UNIQUE INDEX customers_live_external_id_unique ON customers (organization_id, external_id) WHERE deleted_at IS NULL',
  );

  await knex.schema.createTable('customer_sessions', (t) => {
    t.uuid('id').primary();
    t.uuid('customer_id').notNullable().references('id').inTable('customers').onDelete('CASCADE');
    // SHA-256 of the token; the token itself is returned once, to the merchant who asked for it.
    t.string('token_hash', 64).notNullable().unique();
    t.text('return_url').nullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['customer_id']);
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('customer_sessions');
  await knex.schema.dropTable('customers');
}
