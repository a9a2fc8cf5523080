import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { MigrationContext } from './index.js';

// Two kinds of rows earlier versions kept in plain text although nothing needs them so (see SECURITY.md):
//
// - OAuth state rows (`verifications`, identifier `auth-state:<state>`): the state is only ever looked up, so the
//   identifier becomes `auth-state:<SHA-256 hex of the state>`, as reset and deletion tokens already are.
// - Idempotency replays (`idempotency_keys.response_body`): the first answer, replayed as it was, holds whatever
//   that request created: an organization access token, a customer session token, a webhook secret. It must be
//   read back, so it is sealed with the secret box, bound to its (principal, key).
//
// The contexts below are those of src/core/oauth/service.ts and src/core/polar-api/idempotency.ts, written out
// rather than imported so that this migration keeps doing what it did when the code moves on.

const STATE_PREFIX = 'auth-state:';
const SHA256_HEX = /^[0-9a-f]{64}$/;

function idempotencyContext(principal: string, key: string): string {
  return `idempotency_keys:${JSON.stringify([principal, key])}`;
}

export async function up(knex: Knex, context: MigrationContext): Promise<void> {
  const states = (await knex('verifications')
    .select('id', 'identifier')
    .where('identifier', 'like', `${STATE_PREFIX}%`)) as Array<{ id: string; identifier: string }>;
  for (const row of states) {
    const state = row.identifier.slice(STATE_PREFIX.length);
    if (SHA256_HEX.test(state)) continue;
    const digest = createHash('sha256').update(state).digest('hex');
    await knex('verifications')
      .where({ id: row.id })
      .update({ identifier: STATE_PREFIX + digest });
  }

  // A JSON answer never starts with `v1.`, so rows sealed already (the migration run again by hand) are left alone.
  const replays = (await knex('idempotency_keys')
    .select('principal', 'key', 'response_body')
    .whereNotNull('response_body')) as Array<{ principal: string; key: string; response_body: string }>;
  const plain = replays.filter((row) => !row.response_body.startsWith('v1.'));
  if (plain.length === 0) return;
  const seal = context.seal;
  if (!seal) {
    throw new Error(
      `${plain.length} stored idempotency answers must be sealed with the daemon's secret: set TILL_SECRET ` +
        '(or keep the data folder that holds the generated secret) and migrate again',
    );
  }
  for (const row of plain) {
    await knex('idempotency_keys')
      .where({ principal: row.principal, key: row.key })
      .update({ response_body: seal(row.response_body, idempotencyContext(row.principal, row.key)) });
  }
}

// Neither a digest nor, without the secret, a sealed answer can be turned back: the rows are dropped instead. Both
// are short-lived (a state ten minutes, an idempotency key a day); an abandoned sign-in starts again, and a key
// used again after the downgrade runs its request anew.
export async function down(knex: Knex): Promise<void> {
  await knex('verifications').where('identifier', 'like', `${STATE_PREFIX}%`).del();
  await knex('idempotency_keys').whereNotNull('response_body').del();
}
