import type { Command } from 'commander';
import { lazy, withJson, withQuiet } from '../../action.js';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** The one-price flags create and update share. Amounts are minor units (cents), as everywhere in Till. */
function withPriceFlags(command: Command): Command {
  return command
    .option(
      '--price <cents>',
      'a fixed price in minor units, e.g. 1500 for 15.00 (0 or at least the smallest charge, 50 for usd)',
    )
    .option(
      '--custom-price <min,max,preset>',
      'pay what you want, in minor units; any part may be empty, e.g. 500 or 500,10000,1500',
    )
    .option('--free', 'a free price')
    .option('--currency <code>', 'currency of the price, lowercase ISO 4217 (default usd)')
    .option('--description <text>', 'what the product is')
    .option(
      '--metadata <key=value>',
      'metadata entry (repeatable; update replaces the whole set); numbers and true/false are sent as such',
      collect,
    )
    .option('--benefit <id>', 'a benefit the product grants (repeatable, in order; update replaces the set)', collect)
    .option(
      '--media <file-id>',
      'an uploaded product image from `till files upload --service product_media` (repeatable, in order)',
      collect,
    )
    .option(
      '--field <id[:required]>',
      'a custom field the checkout asks for, from `till fields list`; add :required to make it mandatory (repeatable, in order; update replaces the set)',
      collect,
    );
}

export function registerProductCommands(program: Command): void {
  const products = program
    .command('products')
    .description('create, list, show, update and archive products and their prices (/v1/products)');

  withQuiet(
    withJson(
      withPriceFlags(
        products
          .command('create')
          .description('create a product with one price and print its id')
          .option('--name <name>', 'product name (3-64 characters)')
          .option(
            '--recurring <interval>',
            'a subscription billed every day, week, month or year (default: a one-time purchase)',
          )
          .option('--interval-count <n>', 'with --recurring: bill every n intervals, e.g. 3 with month for quarterly')
          .option('--org <id|slug>', 'organization (default: the active one, or your only one)'),
      ),
    ),
  )
    .addHelpText(
      'after',
      `
Examples:
  till products create --name "E-book" --price 1500
  till products create --name "Pro" --recurring month --price 2900 --currency eur --benefit <id>
  till products create --name "Tip jar" --custom-price 100,10000,500 --metadata sku=TIP
  till products create --name "Sampler" --free --json
  till products create --name "Workshop" --price 9900 --field <seats-field-id>:required --field <note-field-id>

At a terminal, a missing --name or price is asked for; in scripts (stdin or stdout not a terminal) nothing is
asked and the command exits 2 naming what is missing. Without --json only the id goes to stdout, so
\`ID=$(till products create ...)\` captures it.`,
    )
    .action(lazy(async () => (await import('./create.js')).run));

  withJson(
    products
      .command('list')
      .description('list products, newest first')
      .option('--org <id|slug>', 'only this organization (default: the active one)')
      .option('--all-orgs', 'every organization of yours')
      .option('--query <text>', 'only products whose name contains the text')
      .option('--archived', 'only archived products')
      .option('--no-archived', 'only products on sale')
      .option('--recurring', 'only subscriptions')
      .option('--no-recurring', 'only one-time products')
      .option('--benefit <id>', 'only products granting this benefit (repeatable)', collect)
      .option('--metadata <key=value>', 'only products with this metadata (repeatable)', collect)
      .option(
        '--sort <field>',
        'created_at, name, price_amount or price_amount_type; a leading - sorts descending (repeatable)',
        collect,
      )
      .option('--page <n>', 'page number (default 1)')
      .option('--limit <n>', 'products per page (default 10, at most 100)')
      .option('--all', 'read every page'),
  ).action(lazy(async () => (await import('./list.js')).run));

  withJson(
    products
      .command('show')
      .description('show one product with its prices, benefits and medias')
      .argument('<id>', 'product id from `till products list`'),
  ).action(lazy(async () => (await import('./show.js')).run));

  withJson(
    withPriceFlags(
      products
        .command('update')
        .description('change a product; a new price replaces the current ones, which are archived, never deleted')
        .argument('<id>', 'product id from `till products list`')
        .option('--name <name>', 'new name (3-64 characters)')
        .option('--no-benefits', 'remove every benefit')
        .option('--no-fields', 'detach every custom field')
        .option('--unarchive', 'put an archived product back on sale'),
    ),
  ).action(lazy(async () => (await import('./update.js')).run));

  withJson(
    products
      .command('archive')
      .description('take a product off sale (Polar has no delete); subscriptions and benefits already sold stay')
      .argument('<id>', 'product id from `till products list`'),
  ).action(lazy(async () => (await import('./archive.js')).run));
}
