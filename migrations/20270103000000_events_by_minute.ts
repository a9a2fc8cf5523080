import type { Knex } from 'knex';

// SQLite: an organization's events are indexed by the minute of their timestamp, in the order they were written
// (`(organization_id, timestamp / 60000)`, the rowid `seq` last), instead of by their exact timestamp. Events stamped
// out of order (a client sending the last hours' usage) each landed on a random leaf of `(organization_id,
// timestamp)`, so every commit rewrote about as many pages as it had events, and the cost of an event grew with
// history (bench/events/README.md: 22,950 events/s at 5,000,000 events, 47,576 with this index). Now each minute in
// flight takes its new entries at its own end. `GET /v1/events` orders by the minute and then by the timestamp
// within it (src/core/events/repository.ts), which SQLite sorts one minute at a time. PostgreSQL keeps its index: it
// did not slow as history grew (26,492 events/s at five million).
export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'pg') return;
  await knex.raw('CREATE INDEX events_organization_minute ON events (organization_id, timestamp / 60000)');
  await knex.raw('DROP INDEX events_organization_id_timestamp_index');
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'pg') return;
  await knex.raw('CREATE INDEX events_organization_id_timestamp_index ON events (organization_id, timestamp)');
  await knex.raw('DROP INDEX events_organization_minute');
}
