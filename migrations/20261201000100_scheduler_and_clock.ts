import type { Knex } from 'knex';

/**
 * Durable due work (src/core/scheduler) and the simulated clock's stored time (TILL_CLOCK=simulated).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('scheduled_jobs', (t) => {
    t.uuid('id').primary();
    // What to do (a handler registered under this name) and to what.
    t.string('kind', 64).notNullable();
    t.string('subject_id', 64).notNullable();
    // When the work is meant to happen; with kind and subject it makes a job unique, so scheduling twice is harmless.
    t.timestamp('due_at', { useTz: true }).notNullable();
    // When it may next be claimed: due_at at first, later than that after a failure (backoff); null once given up.
    t.timestamp('run_at', { useTz: true }).nullable();
    t.integer('attempts').notNullable().defaultTo(0);
    // A claim's lease: past it, a job whose daemon died mid-run is claimed again.
    t.timestamp('claimed_until', { useTz: true }).nullable();
    t.string('claimed_by', 64).nullable();
    t.text('last_error').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.unique(['kind', 'subject_id', 'due_at']);
    // Done jobs are deleted, so this index holds only work still to do: due work is found by it, never by a scan.
    t.index(['run_at']);
    t.index(['subject_id']);
  });

  await knex.schema.createTable('simulated_clock', (t) => {
    // One row: the daemons' shared time when TILL_CLOCK=simulated.
    t.integer('id').primary();
    t.timestamp('now', { useTz: true }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('simulated_clock');
  await knex.schema.dropTableIfExists('scheduled_jobs');
}
