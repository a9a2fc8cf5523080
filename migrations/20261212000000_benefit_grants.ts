import type { Knex } from 'knex';

/**
 * Benefit grants (src/core/benefit-grants) and the license keys the license_keys strategy hands out
 * (src/core/license-keys), with their activations.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('benefit_grants', (t) => {
    t.uuid('id').primary();
    t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.uuid('customer_id').notNullable();
    t.uuid('benefit_id').notNullable();
    t.uuid('subscription_id').nullable();
    t.uuid('order_id').nullable();
    // The subscription or the order that holds the grant: one grant per (benefit, holder), which is what makes a
    // grant job idempotent (the customer is the holder's).
    t.uuid('scope_id').notNullable();
    // Granted: granted_at set, revoked_at null; revoked: the reverse; neither: never granted yet (or failed).
    t.timestamp('granted_at', { useTz: true }).nullable();
    t.timestamp('revoked_at', { useTz: true }).nullable();
    // Polar's BenefitGrantError as JSON: a strategy that needs the customer to act leaves it here.
    t.text('error').nullable();
    t.text('properties').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('modified_at', { useTz: true }).nullable();
    t.unique(['benefit_id', 'scope_id']);
    t.index(['customer_id']);
    t.index(['scope_id']);
    t.index(['organization_id', 'created_at']);
  });

  await knex.schema.createTable('license_keys', (t) => {
    t.uuid('id').primary();
    t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.uuid('customer_id').notNullable();
    t.uuid('benefit_id').notNullable();
    // The key is looked up by its SHA-256 and read back sealed (SECURITY.md).
    t.string('key_digest', 64).notNullable();
    t.text('key_sealed').notNullable();
    t.string('display_key', 64).notNullable();
    t.string('status', 16).notNullable();
    t.integer('limit_activations').nullable();
    // Live activations, kept beside the limit so one conditional UPDATE can take a slot.
    t.integer('activations').notNullable().defaultTo(0);
    t.integer('usage').notNullable().defaultTo(0);
    t.integer('limit_usage').nullable();
    t.integer('validations').notNullable().defaultTo(0);
    t.timestamp('last_validated_at', { useTz: true }).nullable();
    t.timestamp('expires_at', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('modified_at', { useTz: true }).nullable();
    t.unique(['organization_id', 'key_digest']);
    t.index(['customer_id']);
    t.index(['benefit_id']);
  });

  await knex.schema.createTable('license_key_activations', (t) => {
    t.uuid('id').primary();
    t.uuid('license_key_id').notNullable().references('id').inTable('license_keys').onDelete('CASCADE');
    t.text('label').notNullable();
    t.text('meta').notNullable();
    t.text('conditions').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('modified_at', { useTz: true }).nullable();
    t.index(['license_key_id']);
  });

  await knex.schema.alterTable('orders', (t) => {
    // Set by a refund with revoke_benefits: the order no longer entitles its customer to the product's benefits.
    t.timestamp('benefits_revoked_at', { useTz: true }).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('orders', (t) => {
    t.dropColumn('benefits_revoked_at');
  });
  await knex.schema.dropTableIfExists('license_key_activations');
  await knex.schema.dropTableIfExists('license_keys');
  await knex.schema.dropTableIfExists('benefit_grants');
}
