import type { Knex } from 'knex';

// Organizations (Better Auth's organization plugin): organizations, their members, pending invitations, and teams.
// Teams are created now so team routes can be added without another migration. The active organization and team
// live on the session row, as in Better Auth, so every daemon sees the same choice.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('organizations', (t) => {
    t.string('id', 32).primary();
    t.text('name').notNullable();
    t.string('slug', 255).notNullable().unique();
    t.text('logo').nullable();
    // Kept as the JSON text Better Auth stores; some of its routes answer with this string unparsed.
    t.text('metadata').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
  });
  await knex.schema.createTable('members', (t) => {
    t.string('id', 32).primary();
    t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.string('user_id', 32).notNullable().references('id').inTable('users').onDelete('CASCADE');
    // Comma-separated when a member holds several roles.
    t.text('role').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.unique(['organization_id', 'user_id']);
    t.index(['user_id']);
  });
  await knex.schema.createTable('invitations', (t) => {
    t.string('id', 32).primary();
    t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    // Lower-cased on write so recipients match case-insensitively with a plain index.
    t.string('email', 254).notNullable();
    t.text('role').nullable();
    t.text('team_id').nullable();
    // pending | accepted | rejected | canceled
    t.string('status', 16).notNullable();
    // No foreign key: an invitation outlives its inviter (Better Auth reports INVITER_IS_NO_LONGER_A_MEMBER...).
    t.string('inviter_id', 32).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['organization_id', 'status']);
    t.index(['email', 'status']);
  });
  await knex.schema.createTable('teams', (t) => {
    t.string('id', 32).primary();
    t.text('name').notNullable();
    t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).nullable();
    t.index(['organization_id']);
  });
  await knex.schema.createTable('team_members', (t) => {
    t.string('id', 32).primary();
    t.string('team_id', 32).notNullable().references('id').inTable('teams').onDelete('CASCADE');
    t.string('user_id', 32).notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.unique(['team_id', 'user_id']);
    t.index(['user_id']);
  });
  await knex.schema.alterTable('sessions', (t) => {
    // Plain columns, not foreign keys: deleting an organization clears them explicitly so cached sessions are
    // invalidated through the same path as every other session change.
    t.string('active_organization_id', 32).nullable();
    t.string('active_team_id', 32).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sessions', (t) => {
    t.dropColumn('active_team_id');
    t.dropColumn('active_organization_id');
  });
  await knex.schema.dropTableIfExists('team_members');
  await knex.schema.dropTableIfExists('teams');
  await knex.schema.dropTableIfExists('invitations');
  await knex.schema.dropTableIfExists('members');
  await knex.schema.dropTableIfExists('organizations');
}
