import type { Knex } from 'knex';

// Metered billing (src/core/metered-billing): a customer meter counts since its last reset (a cycle's bill, or a
// meter_credit benefit's cycle), as Polar's does. A reset zeroes the row's figures in place; these columns remember
// when it happened, the credit left over at that moment (what a rollover credit carries on), and the last event
// `seq` it covered, so a meter's backfill does not count again what a bill already charged.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('meter_totals', (t) => {
    t.bigInteger('reset_at').nullable();
    t.bigInteger('reset_balance').notNullable().defaultTo(0);
    t.bigInteger('reset_seq').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('meter_totals', (t) => {
    t.dropColumn('reset_at');
    t.dropColumn('reset_balance');
    t.dropColumn('reset_seq');
  });
}
