import { Option, type Command } from 'commander';
import { lazy, withJson } from '../../action.js';

export function registerPasswordCommands(program: Command): void {
  const password = program.command('password').description("the signed-in user's password");
  withJson(
    password
      .command('change')
      .description('change the password (asks for the current one)')
      .option('--password-stdin', 'read the current password from line 1 of stdin and the new one from line 2')
      .option(
        '--revoke-other-sessions',
        'sign out everywhere else; this session is replaced by a new one, which is stored',
      ),
  ).action(lazy(async () => (await import('./change.js')).run));

  withJson(
    password
      .command('reset')
      .description(
        'forgotten password: --email mails a reset token, --token then sets a new password (no sign-in needed)',
      )
      .addOption(new Option('--email <email>', 'mail a reset token to this address').conflicts('token'))
      .addOption(
        new Option('--token <token>', 'the token from the reset mail; asks for the new password').conflicts([
          'email',
          'redirectTo',
        ]),
      )
      .option(
        '--redirect-to <url>',
        'with --email: the page the mailed link opens, with ?token=… (a path or a trusted origin)',
      )
      .option('--password-stdin', 'with --token: read the new password from the first line of stdin'),
  )
    .addHelpText(
      'after',
      `
The daemon answers --email the same way whether or not the address has an account. Without SMTP
(TILL_MAIL_URL=outbox), the operator finds the mail with \`till mail list\`.`,
    )
    .action(lazy(async () => (await import('./reset.js')).run));
}
