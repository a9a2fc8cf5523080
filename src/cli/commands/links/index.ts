import type { Command } from 'commander';
import { lazy, withJson, withQuiet } from '../../action.js';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function registerLinkCommands(program: Command): void {
  const links = program
    .command('links')
    .description(
      'checkout links: shareable URLs that start a checkout for products (Polar-compatible /v1/checkout-links)',
    );

  withQuiet(
    withJson(
      links
        .command('create')
        .description('create a checkout link and print its URL')
        .requiredOption('--product <id>', 'product the link sells (repeatable: the customer picks one)', collect)
        .option('--discount <id>', 'discount applied to checkouts from the link')
        .option('--no-discount-codes', 'do not let customers type a discount code')
        .option('--require-billing-address', 'ask for the full billing address, not just the country')
        .option(
          '--success-url <url>',
          'where customers land after paying; {CHECKOUT_ID} is replaced by the checkout id',
        )
        .option('--label <text>', 'a label to tell links apart (only you see it)'),
    ),
  ).action(lazy(async () => (await import('./create.js')).run));

  withJson(
    links
      .command('update')
      .description('change a checkout link; its URL stays the same')
      .argument('<id>', 'checkout link id from `till links list`')
      .option('--product <id>', 'replace the products the link sells (repeatable)', collect)
      .option('--discount <id>', 'discount applied to checkouts from the link; "none" removes it')
      .option('--discount-codes', 'let customers type a discount code')
      .option('--no-discount-codes', 'do not let customers type a discount code')
      .option('--require-billing-address', 'ask for the full billing address')
      .option('--no-require-billing-address', 'ask only for the country (and what its tax needs)')
      .option('--success-url <url>', 'where customers land after paying; "none" removes it')
      .option('--label <text>', 'a label to tell links apart; "none" removes it'),
  ).action(lazy(async () => (await import('./update.js')).run));

  withJson(
    links
      .command('delete')
      .description('delete a checkout link: its URL stops working; checkouts it started are kept')
      .argument('<id>', 'checkout link id from `till links list`'),
  ).action(lazy(async () => (await import('./delete.js')).run));

  withJson(
    links
      .command('list')
      .description('list checkout links (every page)')
      .option('--product <id>', 'only links selling this product (repeatable)', collect)
      .option('--org <id|slug>', 'only this organization (default: the active one)')
      .option('--all-orgs', 'every organization of yours'),
  ).action(lazy(async () => (await import('./list.js')).run));
}
