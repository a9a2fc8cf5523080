import type { Knex } from 'knex';

// Timestamps are timestamptz on PostgreSQL and epoch milliseconds on SQLite; application code always writes Dates
// and never relies on database-side defaults, so both dialects hold one representation each.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (t) => {
    t.string('id', 32).primary();
    t.string('email', 254).notNullable().unique();
    t.text('name').notNullable();
    t.boolean('email_verified').notNullable().defaultTo(false);
    t.text('image').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
  });

  await knex.schema.createTable('accounts', (t) => {
    t.string('id', 32).primary();
    t.string('user_id', 32).notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('provider_id', 64).notNullable();
    t.string('account_id', 255).notNullable();
    t.text('password').nullable();
    t.text('access_token').nullable();
    t.text('refresh_token').nullable();
    t.text('id_token').nullable();
    t.timestamp('access_token_expires_at', { useTz: true }).nullable();
    t.timestamp('refresh_token_expires_at', { useTz: true }).nullable();
    t.text('scope').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.unique(['provider_id', 'account_id']);
    t.index(['user_id']);
  });

  await knex.schema.createTable('sessions', (t) => {
    t.string('id', 32).primary();
    // Only a digest of the bearer token is kept: a copy of the database does not sign anyone in.
    t.string('token_hash', 64).notNullable().unique();
    t.string('user_id', 32).notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.boolean('remember_me').notNullable().defaultTo(true);
    t.text('ip_address').notNullable().defaultTo('');
    t.text('user_agent').notNullable().defaultTo('');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['user_id']);
    t.index(['expires_at']);
  });

  await knex.schema.createTable('verifications', (t) => {
    t.string('id', 32).primary();
    t.string('identifier', 255).notNullable();
    t.text('value').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['identifier']);
  });

  // Failed sign-ins per e-mail address in fixed one-hour windows, kept in the database so the cap holds across
  // daemons. Keyed by address, not user, so unknown addresses are capped alike and the cap reveals nothing.
  await knex.schema.createTable('sign_in_failures', (t) => {
    t.string('email', 254).primary();
    t.integer('failures').notNullable();
    t.timestamp('window_started_at', { useTz: true }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('sign_in_failures');
  await knex.schema.dropTableIfExists('verifications');
  await knex.schema.dropTableIfExists('sessions');
  await knex.schema.dropTableIfExists('accounts');
  await knex.schema.dropTableIfExists('users');
}
