import type { Knex } from 'knex';

// `webhook_events.replay_base`: how many attempts the event had when it was last replayed. `attempts` now counts
// every attempt of the event for good, so the delivery log numbers attempts on across replays (1, 2, then 3 for the
// replay) instead of starting at 1 again; the retry budget and backoff count from `replay_base`, so a replay still
// gets a fresh budget of attempts. Existing events were never replayed under this rule: 0.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_events', (table) => {
    table.integer('replay_base').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_events', (table) => {
    table.dropColumn('replay_base');
  });
}
