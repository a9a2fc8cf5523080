import type { Knex } from 'knex';

// SQLite: the event seq a held write (src/core/meters/pending-totals.ts) has counted a customer meter's total
// through, on each row it wrote. Held totals are now written a slice of rows per transaction, so that one write no
// longer holds the connection, and every ingestion batch behind it, for the length of the whole (0.5–0.75 s at
// 50,000 totals: bench/events/README.md); the `totals` mark moves once the last slice is in. A daemon killed between
// two slices counts again, from the mark, only the events a row does not already include. PostgreSQL holds nothing.
export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'pg') return;
  await knex.raw('ALTER TABLE meter_totals ADD COLUMN held_through_seq bigint');
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'pg') return;
  await knex.raw('ALTER TABLE meter_totals DROP COLUMN held_through_seq');
}
