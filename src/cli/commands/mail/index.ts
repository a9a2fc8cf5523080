import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

const MAIL_HELP = `
Lists what the daemon wrote (verification, reset, change-of-address and deletion mail), sent or not, so links
reach people even without SMTP (TILL_MAIL_URL=outbox). Needs the admin token: see \`till admin token --help\`.`;

export function registerMailCommands(program: Command): void {
  const mail = program.command('mail').description("the daemon's outgoing mail (operator, admin token)");

  withJson(
    mail
      .command('list')
      .description('list mail, newest first')
      .option('--to <email>', 'only mail to this address')
      .option(
        '--kind <kind>',
        'only this kind: verify-email, change-email-confirmation, change-email-verification, reset-password, delete-account',
      )
      .option('--status <status>', 'only this status: stored (outbox), pending, sending, sent, failed')
      .option('--limit <n>', 'at most this many (1-500, default 50)'),
  )
    .addHelpText('after', MAIL_HELP)
    .action(lazy(async () => (await import('./list.js')).run));

  withJson(
    mail.command('show').description('show one mail, with its text').argument('<id>', 'mail id from `till mail list`'),
  )
    .addHelpText('after', MAIL_HELP)
    .action(lazy(async () => (await import('./show.js')).run));
}
