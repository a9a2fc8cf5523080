import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function registerCheckoutCommands(program: Command): void {
  const checkouts = program
    .command('checkouts')
    .description('create and show checkout sessions (Polar-compatible /v1/checkouts)');
  withJson(
    checkouts
      .command('create')
      .description('create a checkout session and print its URL, to send to a buyer')
      .requiredOption('--product <id>', 'a product to offer (repeatable; the first is preselected)', collect)
      .option('--price <id>', 'preselect this price of the product')
      .option('--discount <id>', 'apply this discount')
      .option('--email <email>', "the buyer's e-mail address")
      .option('--success-url <url>', 'where the buyer goes after paying ({CHECKOUT_ID} is replaced)'),
  ).action(lazy(async () => (await import('./create.js')).run));
  withJson(checkouts.command('show').description('show one checkout session').argument('<id>', 'checkout id')).action(
    lazy(async () => (await import('./show.js')).run),
  );
}
