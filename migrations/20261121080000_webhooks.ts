import type { Knex } from 'knex';

// Webhooks (Polar's endpoints, events and deliveries). The outbox gains what the dispatcher needs: a marker for rows
// already fanned out, and on PostgreSQL a sequence giving the order rows were written in (uuidv7 ids only order by
// millisecond, and one transaction often writes several events in the same one). SQLite's rowid already is that order.

export async function up(knex: Knex): Promise<void> {
  const postgres = knex.client.config.client === 'pg';
  await knex.schema.alterTable('outbox_events', (t) => {
    t.timestamp('dispatched_at', { useTz: true }).nullable();
  });
  if (postgres) {
    await knex.raw('ALTER TABLE outbox_events ADD COLUMN seq BIGSERIAL');
    await knex.raw('CREATE INDEX outbox_events_undispatched ON outbox_events (seq) WHERE dispatched_at IS NULL');
    await knex.raw('CREATE INDEX outbox_events_organization_seq ON outbox_events (organization_id, seq)');
  } else {
    await knex.raw(
      'CREATE INDEX outbox_events_undispatched ON outbox_events (dispatched_at) WHERE dispatched_at IS NULL',
    );
  }

  await knex.schema.createTable('webhook_endpoints', (t) => {
    t.uuid('id').primary();
    t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.text('url').notNullable();
    t.text('name').nullable();
    t.string('format', 16).notNullable();
    // JSON array of event types.
    t.text('events').notNullable();
    t.boolean('enabled').notNullable();
    // Sealed with the secret box, bound to the row; the previous secret still signs until it expires (rotation overlap).
    t.text('secret').notNullable();
    t.text('previous_secret').nullable();
    t.timestamp('previous_secret_expires_at', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('modified_at', { useTz: true }).nullable();
    t.index(['organization_id', 'created_at']);
  });

  await knex.schema.createTable('webhook_events', (t) => {
    // UUIDv7; sent as `webhook-id`, the same on every attempt and redelivery.
    t.uuid('id').primary();
    t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.uuid('endpoint_id').notNullable().references('id').inTable('webhook_endpoints').onDelete('CASCADE');
    // The outbox row's id and sequence (no foreign key: outbox rows are pruned on their own schedule).
    t.uuid('outbox_event_id').nullable();
    t.bigInteger('seq').notNullable();
    t.string('type', 64).notNullable();
    // customer.state_changed: the customer id, so states within the coalescing window replace one another.
    t.string('coalesce_key', 64).nullable();
    // The exact bytes signed and sent; null once archived (90 days).
    t.text('payload').nullable();
    // pending (waiting, retrying or in flight), succeeded, failed, skipped.
    t.string('status', 16).notNullable();
    t.integer('attempts').notNullable();
    t.timestamp('next_attempt_at', { useTz: true }).nullable();
    // A claim's lease: past it, a crashed daemon's attempt is taken again.
    t.timestamp('claimed_until', { useTz: true }).nullable();
    t.integer('last_http_code').nullable();
    t.boolean('succeeded').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('modified_at', { useTz: true }).nullable();
    t.index(['endpoint_id', 'status', 'seq']);
    t.index(['status', 'next_attempt_at']);
    t.index(['organization_id', 'created_at']);
    t.index(['created_at']);
  });

  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.uuid('id').primary();
    t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.uuid('endpoint_id').notNullable().references('id').inTable('webhook_endpoints').onDelete('CASCADE');
    t.uuid('webhook_event_id').notNullable().references('id').inTable('webhook_events').onDelete('CASCADE');
    t.integer('attempt').notNullable();
    t.boolean('succeeded').notNullable();
    t.integer('http_code').nullable();
    // The first 2 KiB of the answer, or why there was none.
    t.text('response').nullable();
    t.integer('duration_ms').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['organization_id', 'created_at']);
    t.index(['endpoint_id', 'created_at']);
    t.index(['webhook_event_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_deliveries');
  await knex.schema.dropTable('webhook_events');
  await knex.schema.dropTable('webhook_endpoints');
  await knex.raw('DROP INDEX IF EXISTS outbox_events_undispatched');
  if (knex.client.config.client === 'pg') {
    await knex.raw('DROP INDEX IF EXISTS outbox_events_organization_seq');
    await knex.raw('ALTER TABLE outbox_events DROP COLUMN seq');
  }
  await knex.schema.alterTable('outbox_events', (t) => {
    t.dropColumn('dispatched_at');
  });
}
