import type { Command } from 'commander';
import { lazy, withJson, withQuiet } from '../../action.js';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function registerCustomerCommands(program: Command): void {
  const customers = program
    .command('customers')
    .description("list, show, create, change and delete an organization's customers (Polar-compatible /v1/customers)");

  customers
    .command('export')
    .description('write customers as CSV (id, external id, e-mail, name, tax id, billing address), oldest first')
    .option('--org <id|slug>', 'this organization instead of the active one')
    .option('--all-orgs', 'every organization of yours')
    .option('-o, --output <file>', 'write to this file instead of standard output')
    .action(lazy(async () => (await import('./export.js')).run));
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
      .option('--org <id|slug>', 'only this organization (default: the active one)')
      .option('--all-orgs', 'every organization of yours'),
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
      .command('meters')
      .description("show a customer's meters: consumed, credited and balance")
      .argument('<id>', 'customer id'),
  ).action(lazy(async () => (await import('./meters.js')).run));

  withJson(
    customers
      .command('portal')
      .description("create a customer session and print the customer's portal URL (POST /v1/customer-sessions/)")
      .argument('<id>', 'customer id')
      .option('--browser', 'open the portal with the desktop browser instead of printing the URL'),
  )
    .addHelpText(
      'after',
      `
Whoever holds the URL is signed in as that customer until the session expires: send it to the customer only.`,
    )
    .action(lazy(async () => (await import('./portal.js')).run));

  withQuiet(
    withJson(
      customers
        .command('create')
        .description('create a customer and print its id')
        .requiredOption('--email <email>', 'e-mail address (unique in the organization)')
        .option('--name <name>', 'name')
        .option('--external-id <id>', 'your own id for the customer (unique in the organization; cannot change later)')
        .option('--metadata <key=value>', 'a metadata entry (repeatable)', collect)
        .option('--org <id|slug>', 'organization (default: the active one)'),
    ),
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

  const methods = customers
    .command('payment-methods')
    .description("a customer's saved cards: list them (merchant API); add or remove one (customer portal, see below)")
    .addHelpText(
      'after',
      `
Polar's merchant API can list a customer's saved cards but not add or delete one: those are the customer's own
portal operations. \`add\` and \`remove\` therefore create a customer session for the customer (your token needs
customer_sessions:write) and act in the portal with it, as the customer would.`,
    );

  withJson(
    methods
      .command('list')
      .description("list a customer's saved cards, newest first, and which one is the default")
      .argument('<customer>', 'customer id'),
  ).action(lazy(async () => (await import('./payment-methods/list.js')).run));

  withJson(
    methods
      .command('add')
      .description('save a card for the customer, through a customer portal session, and print its id')
      .argument('<customer>', 'customer id')
      .requiredOption('--token <token>', 'a test card token with the sandbox processor (tok_visa, tok_mastercard, …)')
      .option('--default', "make it the customer's default card: their live subscriptions then bill it"),
  )
    .addHelpText(
      'after',
      `
Examples:
  till customers payment-methods add 6f1c…e2 --token tok_visa --default
  till customers payment-methods add 6f1c…e2 --token tok_chargeCustomerFail   (saved; later charges decline)`,
    )
    .action(lazy(async () => (await import('./payment-methods/add.js')).run));

  methods
    .command('remove')
    .description(
      'delete a saved card, through a customer portal session; subscriptions it bills move to another card, and ' +
        'with no other card the daemon refuses',
    )
    .argument('<customer>', 'customer id')
    .argument('<method>', 'payment method id')
    .action(lazy(async () => (await import('./payment-methods/remove.js')).run));
}
