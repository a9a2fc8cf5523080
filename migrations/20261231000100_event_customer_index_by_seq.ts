import type { Knex } from 'knex';

// SQLite: `event_customer_index` is keyed by (customer, seq) instead of (customer, timestamp, seq). Readers only ever
// ask it for a customer's seqs (src/core/meters/events-by-customer.ts), and a merge then adds each customer's new
// entries at the end of that customer's entries, on one page, instead of at their timestamps among the customer's
// older ones: with events stamped out of order, a merge wrote a few pages per customer, and more as history grew
// (bench/events/README.md: at 5,000,000 events each merge held the connection for over a second).
export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'pg') return;
  await rebuild(knex, 'customer_id char(36) NOT NULL, seq bigint NOT NULL, PRIMARY KEY (customer_id, seq)', [
    'customer_id',
    'seq',
  ]);
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'pg') return;
  await rebuild(
    knex,
    'customer_id char(36) NOT NULL, timestamp bigint NOT NULL, seq bigint NOT NULL, PRIMARY KEY (customer_id, timestamp, seq)',
    ['customer_id', 'timestamp', 'seq'],
  );
}

/** The index again with these columns, from the events it covers (up to the mark). */
async function rebuild(knex: Knex, definition: string, columns: string[]): Promise<void> {
  await knex.raw('DROP TABLE event_customer_index');
  await knex.raw(`CREATE TABLE event_customer_index (${definition}) WITHOUT ROWID`);
  const list = columns.join(', ');
  await knex.raw(
    `INSERT INTO event_customer_index (${list}) SELECT ${list} FROM events WHERE customer_id IS NOT NULL AND seq <= (SELECT seq FROM event_index_marks WHERE name = 'customer') ORDER BY ${columns.map((_, i) => i + 1).join(', ')}`,
  );
}
