import type { Knex } from 'knex';

// PLACEHOLDER: the helper building this part of the catalog writes the tables here.

export async function up(_knex: Knex): Promise<void> {}

export async function down(_knex: Knex): Promise<void> {}
