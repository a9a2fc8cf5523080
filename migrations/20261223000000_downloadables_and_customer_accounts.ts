import type { Knex } from 'knex';

// The downloadables strategy's records (one per granted file of a grant, Polar's `downloadables`) and the customers'
// connected GitHub and Discord accounts (Polar's customer oauth_accounts), whose tokens are sealed with the secret box.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('downloadables', (t) => {
    t.uuid('id').primary();
    t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.uuid('grant_id').notNullable().references('id').inTable('benefit_grants').onDelete('CASCADE');
    t.uuid('customer_id').notNullable();
    t.uuid('benefit_id').notNullable();
    t.uuid('file_id').notNullable();
    // Revoked with the grant, or when the merchant removed the file from the benefit; granted again in place.
    t.timestamp('revoked_at', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('modified_at', { useTz: true }).nullable();
    t.unique(['grant_id', 'file_id']);
    t.index(['customer_id', 'created_at']);
  });
  await knex.schema.createTable('customer_oauth_accounts', (t) => {
    t.uuid('id').primary();
    t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.uuid('customer_id').notNullable();
    t.string('platform', 16).notNullable();
    // The provider's user id and login (GitHub's collaborator API takes the login).
    t.string('account_id', 64).notNullable();
    t.string('account_username', 255).nullable();
    t.text('access_token').notNullable();
    t.text('refresh_token').nullable();
    t.timestamp('expires_at', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('modified_at', { useTz: true }).nullable();
    t.unique(['customer_id', 'platform']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('customer_oauth_accounts');
  await knex.schema.dropTable('downloadables');
}
