import type { Knex } from 'knex';

// Outgoing mail. A row is written in the same transaction as the change that causes it (sign-up, reset request,
// change of address), so a mail is never lost when the change commits and never sent when it rolls back. Delivery
// workers claim due rows, send them, and retry with backoff; with TILL_MAIL_URL=outbox rows are only kept.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('mails', (t) => {
    // UUIDv7: time-ordered, so listing newest first is an index scan.
    t.string('id', 36).primary();
    t.string('kind', 64).notNullable();
    // The user the mail is about; deleting the user deletes the mail, which holds their address.
    t.string('user_id', 32).nullable().references('id').inTable('users').onDelete('CASCADE');
    t.text('from_address').notNullable();
    t.string('to_address', 254).notNullable();
    t.text('subject').notNullable();
    // Bodies carry live links (reset and delete tokens), so they are sealed with the secret box like other secrets.
    t.text('text_body').notNullable();
    t.text('html_body').notNullable();
    // stored (outbox only) | pending | sending | sent | failed
    t.string('status', 16).notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true }).nullable();
    // A claim's lease: a worker that died mid-send leaves the row to be claimed again once this has passed.
    t.timestamp('locked_until', { useTz: true }).nullable();
    t.text('last_error').nullable();
    t.timestamp('sent_at', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['status', 'next_attempt_at']);
    t.index(['to_address']);
    t.index(['user_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('mails');
}
