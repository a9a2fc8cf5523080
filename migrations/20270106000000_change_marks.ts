import type { Knex } from 'knex';

// PostgreSQL: database/change-marks.ts's marks stored, so that every daemon sharing the database sees them. A row per
// (organization, table), moved by each write to the organization's rows of that table, in the writing transaction.
// SQLite's are counted in memory: one daemon holds the file.
export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') return;
  await knex.schema.createTable('change_marks', (t) => {
    t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.string('table_name', 32).notNullable();
    t.bigInteger('mark').notNullable();
    t.primary(['organization_id', 'table_name']);
  });
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') return;
  await knex.schema.dropTableIfExists('change_marks');
}
