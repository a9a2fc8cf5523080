import type { Knex } from 'knex';

// What the reconciler needs to settle money movements a crash interrupted. Checkouts count their charge attempts
// (the idempotency key of attempt n is `<checkout id>:<n>`, so a checkout reopened after a decline is charged under a
// new key) and, like refunds, note when their in-flight step was last taken in hand (by the request, or later by a
// reconciler's claim), so rows left `confirmed` or `pending` longer than the lease are found and claimed once.
// The sandbox processor keeps its own record of every charge and refund by our key, as a real processor does: it
// plays the processor's database and survives a daemon's crash.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('checkouts', (t) => {
    t.integer('charge_attempts').notNullable().defaultTo(0);
    t.timestamp('in_flight_at', { useTz: true }).nullable();
    t.index(['status', 'in_flight_at']);
  });
  await knex.schema.alterTable('refunds', (t) => {
    t.timestamp('in_flight_at', { useTz: true }).nullable();
    t.index(['status', 'in_flight_at']);
  });
  await knex.schema.createTable('sandbox_processor_records', (t) => {
    // charge | refund
    t.string('kind', 8).notNullable();
    // The idempotency key Till sent (ChargeRequest.reference).
    t.string('reference', 200).notNullable();
    t.string('status', 16).notNullable();
    t.bigInteger('amount').notNullable();
    t.string('currency', 3).notNullable();
    // The result as first answered (JSON), returned again for the same key.
    t.text('result').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.primary(['kind', 'reference']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sandbox_processor_records');
  await knex.schema.alterTable('refunds', (t) => {
    t.dropIndex(['status', 'in_flight_at']);
    t.dropColumn('in_flight_at');
  });
  await knex.schema.alterTable('checkouts', (t) => {
    t.dropIndex(['status', 'in_flight_at']);
    t.dropColumn('in_flight_at');
    t.dropColumn('charge_attempts');
  });
}
