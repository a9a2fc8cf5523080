import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

export function registerAccountCommands(program: Command): void {
  const account = program.command('account').description("the signed-in user's account");
  withJson(
    account
      .command('delete')
      .description('delete the account for good (when the daemon allows it: TILL_DELETE_USER)')
      .option('--yes', 'do not ask for confirmation (needed when stdin is not a terminal)')
      .option('--password-stdin', 'read the password from the first line of stdin')
      .option('--token <token>', 'complete a deletion confirmed by mail, with the token from that mail')
      .option('--callback-url <url>', 'where the mailed confirmation link lands (a path or a trusted origin)'),
  )
    .addHelpText(
      'after',
      `
Without a password, the daemon only deletes for a session signed in within the last day; at a terminal you are
then asked for the password. With TILL_DELETE_USER=verify the daemon mails a confirmation link instead, which
the mail also gives as a token for \`till account delete --token <token>\`.`,
    )
    .action(lazy(async () => (await import('./delete.js')).run));
}
