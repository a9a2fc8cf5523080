import type { Knex } from 'knex';

// On PostgreSQL the rows the webhook dispatcher has not fanned out yet are listed in `outbox_pending` (seq, id)
// instead of being found by `dispatched_at IS NULL`. Marking a row dispatched rewrote it whole, payload included,
// with an entry in each of its indexes (the predicate's column changes, so never a HOT update): in a storm of
// renewals with no endpoint, about a sixth of the server's time and a seventh of the renewals a second. Deleting a
// pending row is a small write. Two statement-level triggers keep the list exact for every writer of the outbox:
// rows inserted are added, rows deleted (an event taken back, an organization deleted) are removed. `dispatched_at`
// is no longer written there. SQLite keeps its mark (20261229000000_outbox_dispatch_mark).
const pg = (knex: Knex) => knex.client.config.client === 'pg';

export async function up(knex: Knex): Promise<void> {
  if (!pg(knex)) return;
  await knex.raw('CREATE TABLE outbox_pending (seq bigint PRIMARY KEY, id uuid NOT NULL)');
  await knex.raw('INSERT INTO outbox_pending (seq, id) SELECT seq, id FROM outbox_events WHERE dispatched_at IS NULL');
  await knex.raw(`
    CREATE FUNCTION outbox_pending_added() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO outbox_pending (seq, id) SELECT seq, id FROM added;
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE FUNCTION outbox_pending_removed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM outbox_pending WHERE seq IN (SELECT seq FROM removed);
      RETURN NULL;
    END $$`);
  await knex.raw(
    `CREATE TRIGGER outbox_events_pending_added AFTER INSERT ON outbox_events
     REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION outbox_pending_added()`,
  );
  await knex.raw(
    `CREATE TRIGGER outbox_events_pending_removed AFTER DELETE ON outbox_events
     REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION outbox_pending_removed()`,
  );
  await knex.raw('DROP INDEX outbox_events_undispatched');
}

export async function down(knex: Knex): Promise<void> {
  if (!pg(knex)) return;
  await knex.raw('CREATE INDEX outbox_events_undispatched ON outbox_events (seq) WHERE dispatched_at IS NULL');
  await knex.raw('DROP TRIGGER outbox_events_pending_added ON outbox_events');
  await knex.raw('DROP TRIGGER outbox_events_pending_removed ON outbox_events');
  await knex.raw('DROP FUNCTION outbox_pending_added()');
  await knex.raw('DROP FUNCTION outbox_pending_removed()');
  await knex.raw(
    `UPDATE outbox_events SET dispatched_at = created_at
     WHERE dispatched_at IS NULL AND seq NOT IN (SELECT seq FROM outbox_pending)`,
  );
  await knex.raw('DROP TABLE outbox_pending');
}
