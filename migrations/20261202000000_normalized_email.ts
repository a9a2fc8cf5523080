import type { Knex } from 'knex';

// `users.normalized_email`: the mailbox an address reaches (spec §3, "extra optional unique normalizedEmail"), which
// sign-in falls back to and which later one-per-person rules key on. Unique, and nullable for the reason below.
//
// Backfill: existing users get it in creation order. Before this column two users could hold `a.b@gmail.com` and
// `ab@gmail.com`, or `ann+x@example.com` and `ann@example.com`: distinct accounts whose normalized forms collide.
// Neither can be merged or renamed without its owner, so the first one created keeps the normalized address and any
// later one keeps NULL (a unique index allows many NULLs on both dialects). Such a user still signs in by their exact
// address; they are only not found through another spelling. Changing their address later sets the column.
//
// The normalization is that of src/core/kernel/email.ts, written out rather than imported so that this migration
// keeps doing what it did when the code moves on.

const GMAIL_DOMAINS = new Set(['gmail.com', 'googlemail.com']);

function normalizeEmail(address: string): string {
  const lowered = address.normalize('NFC').toLowerCase();
  const at = lowered.lastIndexOf('@');
  if (at < 0) return lowered;
  let local = lowered.slice(0, at);
  let domain = lowered.slice(at + 1);
  const plus = local.indexOf('+');
  if (plus > 0) local = local.slice(0, plus);
  if (GMAIL_DOMAINS.has(domain)) {
    domain = 'gmail.com';
    const undotted = local.replaceAll('.', '');
    if (undotted) local = undotted;
  }
  return `${local}@${domain}`;
}

const BATCH = 500;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.string('normalized_email', 254).nullable().unique();
  });
  const taken = new Set<string>();
  let after: { createdAt: unknown; id: string } | null = null;
  for (;;) {
    const query = knex('users').select('id', 'email', 'created_at').orderBy('created_at').orderBy('id').limit(BATCH);
    if (after) {
      const { createdAt, id } = after;
      query.where((later) => {
        later.where('created_at', '>', createdAt as Date).orWhere((same) => {
          same.where('created_at', createdAt as Date).andWhere('id', '>', id);
        });
      });
    }
    const rows = (await query) as Array<{ id: string; email: string; created_at: unknown }>;
    for (const row of rows) {
      const normalized = normalizeEmail(row.email);
      if (taken.has(normalized)) continue;
      taken.add(normalized);
      await knex('users').where({ id: row.id }).update({ normalized_email: normalized });
    }
    if (rows.length < BATCH) break;
    const last = rows[rows.length - 1]!;
    after = { createdAt: last.created_at, id: last.id };
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.dropUnique(['normalized_email']);
  });
  await knex.raw('ALTER TABLE users DROP COLUMN normalized_email');
}
