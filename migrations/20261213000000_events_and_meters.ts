import type { Knex } from 'knex';

// Usage events (Polar's Event), their types, meters, and the running aggregates that let a customer meter or a
// quantity series be read without scanning events (src/core/meters/aggregates.ts explains the keys).

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('events', (t) => {
    // Insertion order: a meter's backfill walks events by it. An integer key is SQLite's rowid, the cheapest insert.
    t.bigIncrements('seq');
    // Time-ordered (UUIDv7), so its unique index grows at the tail.
    t.uuid('id').notNullable().unique();
    t.string('organization_id', 32).notNullable();
    // Null while the event names an external id no customer has yet.
    t.uuid('customer_id').nullable();
    t.text('external_customer_id').nullable();
    t.uuid('member_id').nullable();
    t.text('external_member_id').nullable();
    t.string('name', 128).notNullable();
    // user | system
    t.string('source', 8).notNullable();
    // Epoch milliseconds: compared and bucketed alike on both dialects.
    t.bigInteger('timestamp').notNullable();
    t.bigInteger('ingested_at').notNullable();
    t.text('external_id').nullable();
    t.uuid('parent_id').nullable();
    // JSON object.
    t.text('metadata').notNullable();
    t.index(['organization_id', 'timestamp']);
    t.index(['customer_id', 'timestamp']);
  });
  await knex.raw(
    'CREATE UNIQUE INDEX events_external_id_unique ON events (organization_id, external_id) WHERE external_id IS NOT NULL',
  );
  await knex.raw('CREATE INDEX events_parent ON events (parent_id) WHERE parent_id IS NOT NULL');
  await knex.raw(
    'CREATE INDEX events_pending_external ON events (organization_id, external_customer_id) WHERE customer_id IS NULL',
  );

  await knex.schema.createTable('event_types', (t) => {
    t.uuid('id').primary();
    t.string('organization_id', 32).notNullable();
    t.string('name', 128).notNullable();
    t.string('label', 128).notNullable();
    t.string('source', 8).notNullable();
    // Kept up to date at ingestion, so the list does not count events.
    t.bigInteger('occurrences').notNullable();
    t.bigInteger('first_seen').notNullable();
    t.bigInteger('last_seen').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('modified_at', { useTz: true }).nullable();
    t.unique(['organization_id', 'name', 'source']);
  });

  await knex.schema.createTable('meters', (t) => {
    t.uuid('id').primary();
    t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.string('name', 256).notNullable();
    t.string('unit', 16).notNullable();
    t.text('custom_label').nullable();
    t.integer('custom_multiplier').nullable();
    // JSON: Polar's Filter and aggregation.
    t.text('filter').notNullable();
    t.text('aggregation').notNullable();
    t.text('metadata').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('modified_at', { useTz: true }).nullable();
    t.timestamp('archived_at', { useTz: true }).nullable();
    // Backfill: events with seq in (backfill_cursor, backfill_target] are still to be counted; null target: done.
    t.bigInteger('backfill_target').nullable();
    t.bigInteger('backfill_cursor').notNullable().defaultTo(0);
    t.index(['organization_id', 'created_at']);
  });

  // One row per (meter, subject): subject is `c:<customer id>`, or `x:<external id>` for events no customer had yet.
  await knex.schema.createTable('meter_totals', (t) => {
    t.uuid('meter_id').notNullable().references('id').inTable('meters').onDelete('CASCADE');
    t.text('subject').notNullable();
    // The customer meter's id (stable per meter and customer).
    t.uuid('id').notNullable().unique();
    t.string('organization_id', 32).notNullable();
    t.uuid('customer_id').nullable();
    t.text('external_customer_id').nullable();
    t.bigInteger('events').notNullable();
    // How many matched events carried a numeric value of the aggregated property, and those values' sum/min/max.
    t.bigInteger('value_count').notNullable();
    t.double('value_sum').notNullable();
    t.double('value_min').nullable();
    t.double('value_max').nullable();
    t.bigInteger('credited').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('modified_at', { useTz: true }).nullable();
    t.primary(['meter_id', 'subject']);
    t.index(['customer_id']);
    t.index(['organization_id', 'external_customer_id']);
  });
  // The distinct values of a `unique` meter's property, per subject and per hour (exact, never estimated).
  await knex.schema.createTable('meter_unique_values', (t) => {
    t.uuid('meter_id').notNullable().references('id').inTable('meters').onDelete('CASCADE');
    t.text('subject').notNullable();
    t.text('value').notNullable();
    t.primary(['meter_id', 'subject', 'value']);
  });
  // All customers' matched events per meter and hour of their timestamp: quantity series add hours up.
  await knex.schema.createTable('meter_buckets', (t) => {
    t.uuid('meter_id').notNullable().references('id').inTable('meters').onDelete('CASCADE');
    t.bigInteger('bucket').notNullable();
    t.bigInteger('events').notNullable();
    t.bigInteger('value_count').notNullable();
    t.double('value_sum').notNullable();
    t.double('value_min').nullable();
    t.double('value_max').nullable();
    t.primary(['meter_id', 'bucket']);
  });
  await knex.schema.createTable('meter_bucket_values', (t) => {
    t.uuid('meter_id').notNullable().references('id').inTable('meters').onDelete('CASCADE');
    t.bigInteger('bucket').notNullable();
    t.text('value').notNullable();
    t.primary(['meter_id', 'bucket', 'value']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'meter_bucket_values',
    'meter_buckets',
    'meter_unique_values',
    'meter_totals',
    'meters',
    'event_types',
    'events',
  ])
    await knex.schema.dropTable(table);
}
