import type { Knex } from 'knex';

// SQLite: `event_customer_index` is keyed by (epoch, customer, seq), an epoch being a run of 262,144 event seqs
// (`seq / 262144`), instead of (customer, seq). Keyed by customer, a merge's entries were spread over the whole index,
// about one page each, and each slice's COMMIT wrote every page it touched: the merges held SQLite's connection for
// about a quarter of an ingestion load (bench/events/README.md). Keyed by epoch first, a merge's entries land in the
// newest epoch's part of the index, a few thousand pages at most, and a page takes many of them. Readers look a
// customer up in each epoch (src/core/meters/events-by-customer.ts). PostgreSQL keeps its index on `events`.
export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'pg') return;
  await rebuild(
    knex,
    'epoch bigint NOT NULL, customer_id char(36) NOT NULL, seq bigint NOT NULL, PRIMARY KEY (epoch, customer_id, seq)',
    ['seq / 262144', 'customer_id', 'seq'],
    ['epoch', 'customer_id', 'seq'],
  );
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'pg') return;
  await rebuild(
    knex,
    'customer_id char(36) NOT NULL, seq bigint NOT NULL, PRIMARY KEY (customer_id, seq)',
    ['customer_id', 'seq'],
    ['customer_id', 'seq'],
  );
}

/** The index again with these columns, from the events it covers (up to the mark). */
async function rebuild(knex: Knex, definition: string, values: string[], columns: string[]): Promise<void> {
  await knex.raw('DROP TABLE event_customer_index');
  await knex.raw(`CREATE TABLE event_customer_index (${definition}) WITHOUT ROWID`);
  await knex.raw(
    `INSERT INTO event_customer_index (${columns.join(', ')}) SELECT ${values.join(', ')} FROM events WHERE customer_id IS NOT NULL AND seq <= (SELECT seq FROM event_index_marks WHERE name = 'customer') ORDER BY ${columns.map((_, i) => i + 1).join(', ')}`,
  );
}
