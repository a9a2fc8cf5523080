import type { Knex } from 'knex';

// Polar's EventTypeUpdate sets, with the label, a property path that names each event by its metadata
// (`PATCH /v1/event-types/{id}`). Null until a merchant sets one; ingestion never writes it.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('event_types', (t) => {
    t.string('label_property_selector', 256).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('event_types', (t) => {
    t.dropColumn('label_property_selector');
  });
}
