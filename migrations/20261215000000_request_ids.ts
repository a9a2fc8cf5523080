import type { Knex } from 'knex';

// The request that caused a row of later work (X-Request-Id, at most 128 characters), so that the worker handling it
// can log it: outbox events (the webhook worker), scheduled jobs and mails. Nullable: rows written outside a request
// (a worker's own follow-up, rows from before this migration) have none.
const TABLES = ['outbox_events', 'scheduled_jobs', 'mails'] as const;

export async function up(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.schema.alterTable(table, (t) => {
      t.string('request_id', 128).nullable();
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.schema.alterTable(table, (t) => {
      t.dropColumn('request_id');
    });
  }
}
