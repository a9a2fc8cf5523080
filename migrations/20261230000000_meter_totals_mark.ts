import type { Knex } from 'knex';

// On SQLite, ingestion keeps the running totals of customer meters in memory for a moment and writes them in bulk
// (src/core/meters/pending-totals.ts); the `totals` mark is the last event seq whose totals are written, from which a
// daemon that stopped without writing them counts them again at start. PostgreSQL writes them with the events.
export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'pg') return;
  await knex.raw("INSERT INTO event_index_marks (name, seq) SELECT 'totals', coalesce(max(seq), 0) FROM events");
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'pg') return;
  await knex.raw("DELETE FROM event_index_marks WHERE name = 'totals'");
}
