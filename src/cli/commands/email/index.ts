import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

export function registerEmailCommands(program: Command): void {
  const email = program.command('email').description("the signed-in user's e-mail address");
  withJson(
    email
      .command('change')
      .description('move the account to another address, confirmed by mail')
      .requiredOption('--email <email>', 'the new address')
      .option('--callback-url <url>', 'where the mailed links land (a path or a trusted origin)'),
  )
    .addHelpText(
      'after',
      `
A verified address must first approve the change through a link mailed to it; a verification link then goes to
the new address, and opening that moves the account. An unverified address skips the approval. The account keeps
its current address until then.`,
    )
    .action(lazy(async () => (await import('./change.js')).run));
}
