import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

export function registerGrantCommands(program: Command): void {
  const grants = program
    .command('grants')
    .description('list the benefits customers were granted with their purchases (/v1/benefit-grants)');

  withJson(
    grants
      .command('list')
      .description('list benefit grants, newest first')
      .option('--customer <id>', "only this customer's grants")
      .option('--benefit <id>', 'only grants of this benefit')
      .option('--granted', 'only grants in force')
      .option('--revoked', 'only grants revoked or not (yet) granted')
      .option('--org <id|slug>', 'this organization instead of the active one')
      .option('--all-orgs', 'every organization of yours')
      .option('--page <n>', 'page number (default 1)')
      .option('--limit <n>', 'grants per page (default 10, at most 100)'),
  ).action(lazy(async () => (await import('./list.js')).run));
}
