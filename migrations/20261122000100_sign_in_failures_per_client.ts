import type { Knex } from 'knex';

// Failed sign-ins counted per (e-mail address, client address) pair as well as per address, so the per-address cap
// can hold back the clients that have been failing without locking out the owner (ASVS 6.3). The counts only live
// for an hour, so the old table's rows are dropped rather than carried over.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sign_in_failures');
  await knex.schema.createTable('sign_in_failures', (t) => {
    t.string('email', 254).notNullable();
    // The client's address, or '*' for the count over every client.
    t.string('client', 64).notNullable();
    t.integer('failures').notNullable();
    t.timestamp('window_started_at', { useTz: true }).notNullable();
    t.primary(['email', 'client']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sign_in_failures');
  await knex.schema.createTable('sign_in_failures', (t) => {
    t.string('email', 254).primary();
    t.integer('failures').notNullable();
    t.timestamp('window_started_at', { useTz: true }).notNullable();
  });
}
