import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

const PASSWORD_HELP = `
The password is read from a hidden prompt at a terminal. In scripts, pipe it in and pass --password-stdin
(first line of stdin); there is deliberately no flag for it, since flags end up in shell history and \`ps\`.`;

export function registerAuthCommands(program: Command): void {
  withJson(
    program
      .command('signup')
      .description('create an account with e-mail and password, and sign in to it')
      .requiredOption('--name <name>', 'display name')
      .requiredOption('--email <email>', 'e-mail address')
      .option('--password-stdin', 'read the password from the first line of stdin'),
  )
    .addHelpText('after', PASSWORD_HELP)
    .action(lazy(async () => (await import('./signup.js')).run));

  withJson(
    program
      .command('login')
      .description(
        'sign in (e-mail and password, or a social provider in the browser) and store the session in the profile',
      )
      .option('--email <email>', 'e-mail address')
      .option('--password-stdin', 'read the password from the first line of stdin')
      .option('--provider <id>', 'sign in with a social provider configured on the daemon, in the browser')
      .option('--no-browser', 'with --provider: only print the URL to open, do not start a browser')
      .option('--timeout <seconds>', 'with --provider: how long to wait for the browser', '300'),
  )
    .addHelpText('after', PASSWORD_HELP)
    .addHelpText(
      'after',
      `
With --provider, the CLI listens on 127.0.0.1 on a random port, opens the provider's sign-in in the browser (or
prints its URL when there is no display, no terminal, or --no-browser), and stores the session once the browser
comes back. Exit 1 on timeout or failure, 2 on Ctrl-C.`,
    )
    .action(lazy(async () => (await import('./login.js')).run));

  withJson(program.command('logout').description('end the session on the daemon and forget its token')).action(
    lazy(async () => (await import('./logout.js')).run),
  );

  withJson(
    program
      .command('verify-email')
      .description("mail a verification link to the signed-in user's address")
      .option('--callback-url <url>', 'where the link lands after verifying (a path or a trusted origin)'),
  ).action(lazy(async () => (await import('./verify-email.js')).run));

  withJson(
    program.command('whoami').description('show who the current session belongs to (exit 4 when not signed in)'),
  ).action(lazy(async () => (await import('./whoami.js')).run));
}
