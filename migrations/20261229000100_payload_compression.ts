import type { Knex } from 'knex';

// PostgreSQL compresses a payload over about 2 kB when it writes the row, with pglz by default: in a storm of renewals
// (six payloads of about 3 kB each) that was a ninth of the server's CPU. lz4 compresses several times faster for a
// little less space. Only new values take it; a server built without lz4 keeps pglz.
const COLUMNS = [
  ['outbox_events', 'payload'],
  ['webhook_events', 'payload'],
] as const;

async function lz4Available(knex: Knex): Promise<boolean> {
  const result = await knex.raw(
    "SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)",
  );
  return result.rows.length > 0;
}

export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg' || !(await lz4Available(knex))) return;
  for (const [table, column] of COLUMNS)
    await knex.raw(`ALTER TABLE ${table} ALTER COLUMN ${column} SET COMPRESSION lz4`);
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') return;
  for (const [table, column] of COLUMNS)
    await knex.raw(`ALTER TABLE ${table} ALTER COLUMN ${column} SET COMPRESSION default`);
}
