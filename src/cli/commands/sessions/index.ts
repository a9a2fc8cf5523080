import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

export function registerSessionCommands(program: Command): void {
  const sessions = program.command('sessions').description("list and revoke the signed-in user's sessions");

  withJson(sessions.command('list').description('list active sessions (the current one is marked)'))
    .addHelpText(
      'after',
      `
The TOKEN column is a revocation handle for \`till sessions revoke\`: a digest of each session's token, never
the token itself. Listing needs a fresh session (signed in within the last day); otherwise sign in again.`,
    )
    .action(lazy(async () => (await import('./list.js')).run));

  withJson(
    sessions
      .command('revoke')
      .description('revoke one session')
      .argument('<token>', 'handle from `till sessions list`'),
  ).action(lazy(async () => (await import('./revoke.js')).run));

  withJson(sessions.command('revoke-others').description('revoke every session except the current one')).action(
    lazy(async () => (await import('./revoke-others.js')).run),
  );
}
