import type { Knex } from 'knex';

// Every query the daemon makes of `scheduled_jobs` by subject names the kind too, and the unique index on (kind,
// subject_id, due_at) serves it; the index on `subject_id` alone only cost each job's insert and delete an entry at a
// random place (subjects are subscription ids): in a storm of renewals, a page dirtied for nearly every job.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('scheduled_jobs', (t) => {
    t.dropIndex(['subject_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('scheduled_jobs', (t) => {
    t.index(['subject_id']);
  });
}
