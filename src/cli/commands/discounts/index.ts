import type { Command } from 'commander';
import { lazy, withJson, withQuiet } from '../../action.js';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** The value flags create and update share. */
function withDiscountFlags(command: Command, clearing: boolean): Command {
  const clear = clearing ? '; "none" clears it' : '';
  return command
    .option('--name <name>', 'name customers see when the discount applies')
    .option(
      '--code <code>',
      `code customers type at checkout: 3-256 letters or digits, any case${clearing ? '; "" clears it' : ''}`,
    )
    .option('--percent <percent>', 'percentage off, e.g. 25 or 12.5')
    .option('--amount <minor-units>', 'fixed amount off in minor units, e.g. 500 for $5.00')
    .option('--currency <code>', 'currency of --amount (default usd)')
    .option('--months <n>', 'months a repeating discount applies (1-999)')
    .option('--max-redemptions <n>', `how many times it can be redeemed in all${clear}`)
    .option('--starts-at <date>', `redeemable from this date or date-time${clear}`)
    .option('--ends-at <date>', `redeemable until this date or date-time${clear}`)
    .option('--product <id>', `only for this product (repeatable${clearing ? '; replaces the list' : ''})`, collect);
}

export function registerDiscountCommands(program: Command): void {
  const discounts = program
    .command('discounts')
    .description('create, list, change and delete discounts and their codes (Polar-compatible /v1/discounts)');

  withQuiet(
    withJson(
      withDiscountFlags(
        discounts
          .command('create')
          .description('create a discount and print its id (asks for missing fields at a terminal)'),
        false,
      )
        .option('--duration <duration>', 'once (first payment), forever, or repeating (with --months)')
        .option('--org <id|slug>', 'organization (default: the active one)'),
    ),
  )
    .addHelpText(
      'after',
      `
Needs --name, --percent or --amount, and --duration (with --months when repeating). At a terminal, whatever is
missing is asked for; in scripts a missing flag is a usage error (exit 2). Examples:
  till discounts create --name "Launch" --code LAUNCH --percent 25 --duration once
  till discounts create --name "Loyal" --amount 500 --currency usd --duration repeating --months 3`,
    )
    .action(lazy(async () => (await import('./create.js')).run));

  withJson(
    discounts
      .command('list')
      .description('list discounts (every page)')
      .option('--query <text>', 'only those whose name or code contains this text')
      .option('--org <id|slug>', 'only this organization (default: the active one)')
      .option('--all-orgs', 'every organization of yours'),
  ).action(lazy(async () => (await import('./list.js')).run));

  withJson(
    discounts
      .command('show')
      .description('show one discount: its value, code, limits, dates and products')
      .argument('<id>', 'discount id from `till discounts list`'),
  ).action(lazy(async () => (await import('./show.js')).run));

  withJson(
    withDiscountFlags(
      discounts
        .command('update')
        .description('change a discount (type and duration cannot change; amounts freeze once redeemed)')
        .argument('<id>', 'discount id'),
      true,
    ),
  ).action(lazy(async () => (await import('./update.js')).run));

  withJson(
    discounts
      .command('delete')
      .description('delete a discount; orders that used it keep it')
      .argument('<id>', 'discount id'),
  ).action(lazy(async () => (await import('./delete.js')).run));
}
