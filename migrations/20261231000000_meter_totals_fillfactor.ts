import type { Knex } from 'knex';

// On PostgreSQL, every ingestion transaction adds to a few thousand rows of `meter_totals` (and to the hour's rows of
// `meter_buckets`). Those updates change no indexed column, so PostgreSQL can write the new version on the same page
// and leave the four indexes of `meter_totals` alone (a HOT update), but only if the page has room: filled to the brim
// as rows are inserted, nearly every update wrote a new entry into each index instead. Half-full pages leave that
// room (bench/events/README.md: about a fifth more events a second). Pages written from now on follow it; a table
// rewritten by VACUUM FULL does too. SQLite updates in place anyway.
const TABLES = ['meter_totals', 'meter_buckets'] as const;

export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') return;
  for (const table of TABLES) await knex.raw(`ALTER TABLE ${table} SET (fillfactor = 50)`);
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') return;
  for (const table of TABLES) await knex.raw(`ALTER TABLE ${table} RESET (fillfactor)`);
}
