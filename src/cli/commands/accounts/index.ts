import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

export function registerAccountsCommands(program: Command): void {
  const accounts = program
    .command('accounts')
    .description("list and unlink the signed-in user's sign-in methods (password, social providers)");

  withJson(accounts.command('list').description('list the accounts linked to the signed-in user')).action(
    lazy(async () => (await import('./list.js')).run),
  );

  withJson(
    accounts
      .command('unlink')
      .description('unlink an account (the last one cannot be unlinked)')
      .argument('<account-id>', 'the ID column of `till accounts list`'),
  ).action(lazy(async () => (await import('./unlink.js')).run));
}
