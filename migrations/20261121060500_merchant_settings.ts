import type { Knex } from 'knex';

// The rest of the merchant settings Polar keeps on an organization, beyond what the /v1 foundation added. JSON
// columns hold only what the merchant set; readers fill in the defaults, so a later default reaches every row.

const JSON_COLUMNS = ['details', 'notification_settings', 'customer_email_settings', 'customer_portal_settings'];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('organizations', (t) => {
    // Private business details (Polar's KYC form); never returned, only details_submitted_at is.
    for (const column of JSON_COLUMNS) t.text(column).nullable();
    t.string('country', 2).nullable();
    t.string('default_presentment_currency', 3).nullable();
    t.string('default_tax_behavior', 16).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('organizations', (t) => {
    for (const column of [...JSON_COLUMNS, 'country', 'default_presentment_currency', 'default_tax_behavior'])
      t.dropColumn(column);
  });
}
