import type { Knex } from 'knex';

// Products and their prices, and what a product carries: benefits, media files, custom fields asked at checkout.
// Prices are never deleted: a price taken off a product is archived, so subscriptions and orders keep theirs.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('products', (t) => {
    t.uuid('id').primary();
    t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.string('name', 64).notNullable();
    t.text('description').nullable();
    // draft | private | public
    t.string('visibility', 16).notNullable().defaultTo('public');
    // day | week | month | year; null for a one-time product.
    t.string('recurring_interval', 8).nullable();
    t.integer('recurring_interval_count').nullable();
    t.string('trial_interval', 8).nullable();
    t.integer('trial_interval_count').nullable();
    t.boolean('is_archived').notNullable().defaultTo(false);
    // JSON object
    t.text('metadata').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('modified_at', { useTz: true }).nullable();
    t.index(['organization_id', 'created_at']);
  });
  await knex.schema.createTable('product_prices', (t) => {
    t.uuid('id').primary();
    t.uuid('product_id').notNullable().references('id').inTable('products').onDelete('CASCADE');
    // fixed | custom | free | metered_unit
    t.string('amount_type', 16).notNullable();
    t.string('price_currency', 3).notNullable();
    // location | inclusive | exclusive; null: the organization's default.
    t.string('tax_behavior', 16).nullable();
    // catalog | ad_hoc
    t.string('source', 16).notNullable().defaultTo('catalog');
    // Minor units. Which of these are set depends on amount_type.
    t.bigInteger('price_amount').nullable();
    t.bigInteger('minimum_amount').nullable();
    t.bigInteger('maximum_amount').nullable();
    t.bigInteger('preset_amount').nullable();
    // metered_unit: a decimal string (fractions of a cent per unit), kept as text so no float ever touches it.
    t.string('unit_amount', 40).nullable();
    t.bigInteger('cap_amount').nullable();
    // No meters table exists yet, so this is not a foreign key.
    t.uuid('meter_id').nullable();
    t.boolean('is_archived').notNullable().defaultTo(false);
    // The order prices were given in; prices created together share created_at.
    t.integer('position').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('modified_at', { useTz: true }).nullable();
    t.index(['product_id', 'is_archived']);
  });
  await knex.schema.createTable('product_benefits', (t) => {
    t.uuid('product_id').notNullable().references('id').inTable('products').onDelete('CASCADE');
    t.uuid('benefit_id').notNullable().references('id').inTable('benefits').onDelete('CASCADE');
    t.integer('order').notNullable();
    t.primary(['product_id', 'benefit_id']);
    t.index(['benefit_id']);
  });
  await knex.schema.createTable('product_medias', (t) => {
    t.uuid('product_id').notNullable().references('id').inTable('products').onDelete('CASCADE');
    t.uuid('file_id').notNullable().references('id').inTable('files').onDelete('CASCADE');
    t.integer('order').notNullable();
    t.primary(['product_id', 'file_id']);
  });
  await knex.schema.createTable('product_custom_fields', (t) => {
    t.uuid('product_id').notNullable().references('id').inTable('products').onDelete('CASCADE');
    t.uuid('custom_field_id').notNullable().references('id').inTable('custom_fields').onDelete('CASCADE');
    t.integer('order').notNullable();
    t.boolean('required').notNullable();
    t.primary(['product_id', 'custom_field_id']);
    t.index(['custom_field_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('product_custom_fields');
  await knex.schema.dropTable('product_medias');
  await knex.schema.dropTable('product_benefits');
  await knex.schema.dropTable('product_prices');
  await knex.schema.dropTable('products');
}
