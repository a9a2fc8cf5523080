import type { Knex } from 'knex';

// On SQLite the dispatcher's progress through the outbox is a mark (src/core/webhooks/outbox-repository.ts): rows up
// to it are dispatched. Setting `dispatched_at` rewrote every row, a page each for payloads of a few kilobytes, and kept
// a partial index of the rows waiting. PostgreSQL keeps both (its writers commit seqs out of order).
export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'pg') return;
  await knex.raw('CREATE TABLE outbox_marks (name varchar(32) PRIMARY KEY, seq bigint NOT NULL)');
  // Dispatch goes in rowid order, so the rows already dispatched are a prefix.
  await knex.raw(
    `INSERT INTO outbox_marks (name, seq) SELECT 'dispatched', coalesce(
       (SELECT min(rowid) - 1 FROM outbox_events WHERE dispatched_at IS NULL),
       (SELECT max(rowid) FROM outbox_events),
       0)`,
  );
  await knex.raw('DROP INDEX outbox_events_undispatched');
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'pg') return;
  await knex.raw(
    `UPDATE outbox_events SET dispatched_at = created_at
     WHERE dispatched_at IS NULL AND rowid <= (SELECT seq FROM outbox_marks WHERE name = 'dispatched')`,
  );
  await knex.raw(
    'CREATE INDEX outbox_events_undispatched ON outbox_events (dispatched_at) WHERE dispatched_at IS NULL',
  );
  await knex.raw('DROP TABLE outbox_marks');
}
