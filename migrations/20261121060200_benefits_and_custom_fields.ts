import type { Knex } from 'knex';

// Benefits (what a product grants) and custom fields (what a checkout asks), both owned by one organization.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('benefits', (t) => {
    t.uuid('id').primary();
    t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    // custom | discord | github_repository | downloadables | license_keys | meter_credit
    t.string('type', 32).notNullable();
    t.string('description', 42).notNullable();
    t.boolean('selectable').notNullable().defaultTo(true);
    t.boolean('deletable').notNullable().defaultTo(true);
    // draft | private | public: whether the customer portal shows it (Polar 2026-04).
    t.string('visibility', 16).notNullable().defaultTo('public');
    // JSON objects: the merchant's metadata and the type's properties as the wire shows them.
    t.text('metadata').notNullable();
    t.text('properties').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('modified_at', { useTz: true }).nullable();
    // Polar soft-deletes: grants already handed out keep pointing at the row.
    t.timestamp('deleted_at', { useTz: true }).nullable();
    t.index(['organization_id', 'created_at']);
  });
  await knex.schema.createTable('custom_fields', (t) => {
    t.uuid('id').primary();
    t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    // checkbox | date | number | select | text
    t.string('type', 16).notNullable();
    t.string('slug', 100).notNullable();
    t.string('name', 100).notNullable();
    t.text('properties').notNullable();
    t.text('metadata').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('modified_at', { useTz: true }).nullable();
    t.unique(['organization_id', 'slug']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('custom_fields');
  await knex.schema.dropTable('benefits');
}
