import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function registerCustomerCommands(program: Command): void {
  const customers = program
    .command('customers')
    .description("list, show, create, change and delete an organization's customers (Polar-compatible /v1/customers)");

  withJson(
    customers
      .command('list')
      .description('list customers, newest first (every page)')
      .option('--email <email>', 'only the customer with this e-mail address')
      .option('--query <text>', 'only those whose e-mail address or name contains this text')
      .option(
        '--metadata <key=value>',
        'only those whose metadata has this value (repeatable; all must match)',
        collect,
      )
      .option('--org <id|slug>', 'only this organization'),
  ).action(lazy(async () => (await import('./list.js')).run));

  withJson(
    customers
      .command('show')
      .description('show one customer')
      .argument('[id]', 'customer id')
      .option('--external-id <id>', 'find the customer by your own id instead'),
  ).action(lazy(async () => (await import('./show.js')).run));

  withJson(
    customers
      .command('state')
      .description("show a customer's state: active subscriptions, granted benefits and meters")
      .argument('[id]', 'customer id')
      .option('--external-id <id>', 'find the customer by your own id instead'),
  ).action(lazy(async () => (await import('./state.js')).run));

  withJson(
    customers
      .command('create')
      .description('create a customer and print its id')
      .requiredOption('--email <email>', 'e-mail address (unique in the organization)')
      .option('--name <name>', 'name')
      .option('--external-id <id>', 'your own id for the customer (unique in the organization; cannot change later)')
      .option('--metadata <key=value>', 'a metadata entry (repeatable)', collect)
      .option('--org <id|slug>', 'organization (default: the active one)'),
  ).action(lazy(async () => (await import('./create.js')).run));

  withJson(
    customers
      .command('update')
      .description('change a customer')
      .argument('[id]', 'customer id')
      .option(
        '--external-id <id>',
        'with <id>: set the external id (only if it has none); without: find the customer by it',
      )
      .option('--email <email>', 'new e-mail address (it becomes unverified)')
      .option('--name <name>', 'new name ("" clears it)')
      .option('--metadata <key=value>', 'metadata entry (repeatable; replaces all metadata)', collect),
  )
    .addHelpText(
      'after',
      `
Examples:
  till customers update 6f1c…e2 --name "Ada Lovelace" --metadata plan=pro
  till customers update --external-id usr_42 --email ada@example.com`,
    )
    .action(lazy(async () => (await import('./update.js')).run));

  withJson(
    customers
      .command('delete')
      .description('delete a customer (its e-mail address and external id become free again)')
      .argument('[id]', 'customer id')
      .option('--external-id <id>', 'find the customer by your own id instead')
      .option('--anonymize', 'also erase personal data (name, e-mail address, billing address)'),
  ).action(lazy(async () => (await import('./delete.js')).run));
}
