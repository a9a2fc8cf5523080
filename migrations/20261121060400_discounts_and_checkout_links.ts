import type { Knex } from 'knex';

// Discounts and checkout links. Both are soft-deleted: orders and checkouts made with them keep pointing at them.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('discounts', (t) => {
    t.uuid('id').primary();
    t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.text('name').notNullable();
    // fixed | percentage
    t.string('type', 16).notNullable();
    // fixed: the amount in minor units in `currency`; `amounts` (JSON {currency: amount}) holds every currency.
    t.bigInteger('amount').nullable();
    t.string('currency', 3).nullable();
    t.text('amounts').nullable();
    // percentage: 1–10000 (hundredths of a percent).
    t.integer('basis_points').nullable();
    // once | forever | repeating
    t.string('duration', 16).notNullable();
    t.integer('duration_in_months').nullable();
    t.string('code', 256).nullable();
    // Lower-cased code, for case-insensitive uniqueness with a plain index on both dialects. Cleared on deletion so
    // a deleted discount's code can be used again (NULLs never collide in a unique index).
    t.string('code_normalized', 256).nullable();
    t.timestamp('starts_at', { useTz: true }).nullable();
    t.timestamp('ends_at', { useTz: true }).nullable();
    t.integer('max_redemptions').nullable();
    t.integer('redemptions_count').notNullable().defaultTo(0);
    // JSON object
    t.text('metadata').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('modified_at', { useTz: true }).nullable();
    t.timestamp('deleted_at', { useTz: true }).nullable();
    t.unique(['organization_id', 'code_normalized']);
    t.index(['organization_id', 'created_at']);
  });
  await knex.schema.createTable('discount_products', (t) => {
    t.uuid('discount_id').notNullable().references('id').inTable('discounts').onDelete('CASCADE');
    t.uuid('product_id').notNullable().references('id').inTable('products').onDelete('CASCADE');
    // The order the products were given in, so reads list them the same way every time.
    t.integer('position').notNullable();
    t.primary(['discount_id', 'product_id']);
    t.index(['product_id']);
  });
  await knex.schema.createTable('checkout_links', (t) => {
    t.uuid('id').primary();
    t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    // The public part of the link's URL; unguessable, since anyone holding it can open a checkout.
    t.string('client_secret', 64).notNullable().unique();
    t.string('payment_processor', 16).notNullable();
    t.text('success_url').nullable();
    t.text('return_url').nullable();
    t.text('label').nullable();
    t.boolean('allow_discount_codes').notNullable();
    t.boolean('require_billing_address').notNullable();
    t.uuid('discount_id').nullable().references('id').inTable('discounts').onDelete('SET NULL');
    // day | week | month | year
    t.string('trial_interval', 8).nullable();
    t.integer('trial_interval_count').nullable();
    // JSON object
    t.text('metadata').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('modified_at', { useTz: true }).nullable();
    t.timestamp('deleted_at', { useTz: true }).nullable();
    t.index(['organization_id', 'created_at']);
    t.index(['discount_id']);
  });
  await knex.schema.createTable('checkout_link_products', (t) => {
    t.uuid('checkout_link_id').notNullable().references('id').inTable('checkout_links').onDelete('CASCADE');
    t.uuid('product_id').notNullable().references('id').inTable('products').onDelete('CASCADE');
    t.integer('order').notNullable();
    t.primary(['checkout_link_id', 'product_id']);
    t.index(['product_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('checkout_link_products');
  await knex.schema.dropTable('checkout_links');
  await knex.schema.dropTable('discount_products');
  await knex.schema.dropTable('discounts');
}
