import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

export function registerPasswordCommands(program: Command): void {
  const password = program.command('password').description("the signed-in user's password");
  withJson(
    password
      .command('change')
      .description('change the password (asks for the current one)')
      .option('--password-stdin', 'read the current password from line 1 of stdin and the new one from line 2')
      .option('--revoke-other-sessions', 'sign out everywhere else; this session is replaced by a new one, which is stored'),
  ).action(lazy(async () => (await import('./change.js')).run));
}
