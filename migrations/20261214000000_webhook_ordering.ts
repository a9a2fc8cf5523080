import type { Knex } from 'knex';

// Webhooks keep order per customer instead of per endpoint (issue 20). `webhook_events.ordering_key` is the customer an
// event is about (null: none), set at dispatch; the partial index serves the claim's check for an earlier pending event
// of the same key. `webhook_endpoints.max_concurrency` is the endpoint's limit of deliveries in flight (null: the default).
//
// Backfill: pending events get their key from their payload, with the rule of src/core/webhooks/ordering.ts written
// out here so this migration keeps doing what it did when the code moves on. Finished events never need one.

function orderingKeyOf(type: string, payload: string | null): string | null {
  if (payload === null) return null;
  let data: unknown;
  try {
    data = JSON.parse(payload);
  } catch {
    return null;
  }
  const inner = (data as { data?: unknown } | null)?.data;
  if (typeof inner !== 'object' || inner === null) return null;
  const record = inner as { id?: unknown; customer_id?: unknown };
  const key = type.startsWith('customer.') ? record.id : record.customer_id;
  return typeof key === 'string' && key.length > 0 && key.length <= 64 ? key : null;
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_events', (t) => {
    t.string('ordering_key', 64).nullable();
  });
  await knex.schema.alterTable('webhook_endpoints', (t) => {
    t.integer('max_concurrency').nullable();
  });
  await knex.raw(
    "CREATE INDEX webhook_events_pending_ordering ON webhook_events (endpoint_id, ordering_key, seq) WHERE status = 'pending'",
  );
  const pending = await knex('webhook_events').select('id', 'type', 'payload').where('status', 'pending');
  for (const row of pending as Array<{ id: string; type: string; payload: string | null }>) {
    const key = orderingKeyOf(row.type, row.payload);
    if (key !== null) await knex('webhook_events').where('id', row.id).update({ ordering_key: key });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX webhook_events_pending_ordering');
  await knex.schema.alterTable('webhook_events', (t) => {
    t.dropColumn('ordering_key');
  });
  await knex.schema.alterTable('webhook_endpoints', (t) => {
    t.dropColumn('max_concurrency');
  });
}
