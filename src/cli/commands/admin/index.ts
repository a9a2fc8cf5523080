import { Option, type Command } from 'commander';
import { lazy, withJson } from '../../action.js';

const ADMIN_TOKEN_HELP = `
The admin token comes from TILL_ADMIN_TOKEN; else it is derived from TILL_SECRET; else from the \`secret\` file
in the daemon's data dir (TILL_DATA_DIR, default $XDG_DATA_HOME/till), so on the daemon's own machine it needs
no setup. Elsewhere, run \`till admin token\` there and pass the result in TILL_ADMIN_TOKEN.`;

export function registerAdminCommands(program: Command): void {
  const admin = program.command('admin').description("operator tasks, authorized by the daemon's admin token");

  withJson(
    admin
      .command('set-password')
      .description('give a password to a user who has none (e.g. signed up with a social provider)')
      .addOption(new Option('--email <email>', "the user's e-mail address").conflicts('userId'))
      .addOption(new Option('--user-id <id>', "the user's id").conflicts('email'))
      .option('--password-stdin', 'read the new password from the first line of stdin'),
  )
    .addHelpText('after', ADMIN_TOKEN_HELP)
    .action(lazy(async () => (await import('./set-password.js')).run));

  withJson(admin.command('token').description('print the admin token (a credential: handle it like TILL_SECRET)'))
    .addHelpText('after', ADMIN_TOKEN_HELP)
    .action(lazy(async () => (await import('./token.js')).run));
}
