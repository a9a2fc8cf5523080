import type { Knex } from 'knex';

// Signing keys of /api/auth/token, published at /api/auth/jwks (Better Auth's jwt plugin keeps the same table).
// Rows are never updated: a key's expires_at is fixed when it is created, so a daemon that caches its signing key
// never has it retired behind its back.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('jwks', (t) => {
    t.string('id', 32).primary();
    t.text('public_key').notNullable();
    // Sealed with the secret box (AES-256-GCM under a key derived from TILL_SECRET); never the plain JWK.
    t.text('private_key').notNullable();
    t.string('alg', 16).notNullable();
    t.string('crv', 16).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    // When the key stops signing; null when rotation is off.
    t.timestamp('expires_at', { useTz: true }).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('jwks');
}
