import type { Knex } from 'knex';

// The request that caused an outbox event, carried on to the webhook events fanned out from it, so that the delivery
// worker's log lines about an attempt name it. Nullable: events from before this migration, and those of an outbox
// row written outside a request, have none.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_events', (t) => {
    t.string('request_id', 128).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_events', (t) => {
    t.dropColumn('request_id');
  });
}
