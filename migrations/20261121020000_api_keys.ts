import type { Knex } from 'knex';

// API keys (Better Auth's api-key plugin, table `apikey` there). A key belongs to a user today; organizations come
// later, so the owner is a (reference_type, reference_id) pair without a foreign key, as Better Auth's referenceId.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('api_keys', (t) => {
    t.string('id', 32).primary();
    t.string('config_id', 64).notNullable().defaultTo('default');
    t.text('name').nullable();
    // The first characters of the key (prefix included), shown so people can tell keys apart; never enough to use.
    t.string('start', 16).nullable();
    t.string('prefix', 32).nullable();
    // base64url(SHA-256(key)), Better Auth's own hashing, so keys imported from it keep working.
    t.string('key_hash', 64).notNullable().unique();
    t.string('reference_type', 16).notNullable();
    t.string('reference_id', 64).notNullable();
    t.boolean('enabled').notNullable().defaultTo(true);
    t.boolean('rate_limit_enabled').notNullable().defaultTo(false);
    // Durations in milliseconds, as on Better Auth's wire.
    t.bigInteger('rate_limit_time_window').nullable();
    t.integer('rate_limit_max').nullable();
    t.timestamp('rate_limit_window_start', { useTz: true }).nullable();
    t.bigInteger('request_count').notNullable().defaultTo(0);
    t.integer('remaining').nullable();
    t.integer('refill_amount').nullable();
    t.bigInteger('refill_interval').nullable();
    t.timestamp('last_refill_at', { useTz: true }).nullable();
    t.timestamp('last_request', { useTz: true }).nullable();
    t.timestamp('expires_at', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    // JSON text on both dialects.
    t.text('permissions').nullable();
    t.text('metadata').nullable();
    t.index(['reference_type', 'reference_id']);
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('api_keys');
}
