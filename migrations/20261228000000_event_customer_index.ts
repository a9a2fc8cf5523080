import type { Knex } from 'knex';

// On SQLite, a customer's events are found through `event_customer_index`, filled in bulk behind ingestion
// (src/core/events/customer-index.ts), instead of an index on `events (customer_id, timestamp)` kept row by row. Usage
// events arrive spread over thousands of customers, so each one landed on a different page of that index: one page read
// and written per event, growing with history (bench/events/README.md). Sorted once per few tens of thousands of events,
// a customer's new entries sit together. `event_index_marks.seq`: every event up to it is in the table; those after it
// are read from `events` by seq, a short range. PostgreSQL keeps its index (concurrent writers commit seqs out of order,
// so a mark could pass an event not yet committed).
export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'pg') return;
  await knex.raw(
    'CREATE TABLE event_customer_index (customer_id char(36) NOT NULL, timestamp bigint NOT NULL, seq bigint NOT NULL, PRIMARY KEY (customer_id, timestamp, seq)) WITHOUT ROWID',
  );
  await knex.raw('CREATE TABLE event_index_marks (name varchar(32) PRIMARY KEY, seq bigint NOT NULL)');
  await knex.raw(
    'INSERT INTO event_customer_index (customer_id, timestamp, seq) SELECT customer_id, timestamp, seq FROM events WHERE customer_id IS NOT NULL ORDER BY 1, 2, 3',
  );
  await knex.raw("INSERT INTO event_index_marks (name, seq) SELECT 'customer', coalesce(max(seq), 0) FROM events");
  await knex.raw('DROP INDEX events_customer_id_timestamp_index');
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'pg') return;
  await knex.raw('CREATE INDEX events_customer_id_timestamp_index ON events (customer_id, timestamp)');
  await knex.raw('DROP TABLE event_index_marks');
  await knex.raw('DROP TABLE event_customer_index');
}
