import type { Knex } from 'knex';

// The /v1 (Polar-compatible) API's foundation: organization access tokens, idempotency keys, the event outbox the
// webhook worker will read, and the merchant settings Polar keeps on an organization.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('organizations', (t) => {
    t.string('email', 254).nullable();
    t.text('website').nullable();
    // JSON: [{platform, url}]
    t.text('socials').nullable();
    t.timestamp('details_submitted_at', { useTz: true }).nullable();
    // JSON objects; absent means Polar's defaults.
    t.text('feature_settings').nullable();
    t.text('subscription_settings').nullable();
    t.timestamp('modified_at', { useTz: true }).nullable();
  });
  await knex.schema.createTable('organization_access_tokens', (t) => {
    t.uuid('id').primary();
    t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.text('comment').notNullable();
    // SHA-256 of the token; the token itself is shown once.
    t.string('token_hash', 64).notNullable().unique();
    // JSON array of scope names.
    t.text('scopes').notNullable();
    t.timestamp('expires_at', { useTz: true }).nullable();
    t.timestamp('last_used_at', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('modified_at', { useTz: true }).nullable();
    t.index(['organization_id']);
  });
  await knex.schema.createTable('idempotency_keys', (t) => {
    // Who sent the key (token or user): the same key from two callers is two keys.
    t.string('principal', 80).notNullable();
    t.string('key', 255).notNullable();
    t.string('method', 8).notNullable();
    t.text('path').notNullable();
    t.string('request_hash', 64).notNullable();
    // null while the first request is still running.
    t.integer('response_status').nullable();
    t.text('response_body').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.primary(['principal', 'key']);
    t.index(['expires_at']);
  });
  await knex.schema.createTable('outbox_events', (t) => {
    // UUIDv7: time-ordered, so the webhook worker reads the outbox in insertion order.
    t.uuid('id').primary();
    t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.string('type', 64).notNullable();
    // JSON: the event's `data`, rendered when the change happened.
    t.text('payload').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['organization_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('outbox_events');
  await knex.schema.dropTable('idempotency_keys');
  await knex.schema.dropTable('organization_access_tokens');
  await knex.schema.alterTable('organizations', (t) => {
    for (const column of [
      'email',
      'website',
      'socials',
      'details_submitted_at',
      'feature_settings',
      'subscription_settings',
      'modified_at',
    ])
      t.dropColumn(column);
  });
}
