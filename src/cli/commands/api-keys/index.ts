import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

export function registerApiKeyCommands(program: Command): void {
  const apiKeys = program
    .command('api-keys')
    .description("create, list and revoke the signed-in user's API keys (for CI: TILL_TOKEN=<key>)");

  withJson(
    apiKeys
      .command('create')
      .description('create an API key and print it (shown this once)')
      .option('--name <name>', 'a name to tell the key apart (1-32 characters)')
      .option('--expires-in <days>', 'days until the key expires (1-365; default: never)')
      .option('--prefix <prefix>', 'text put before the key, e.g. till_ (letters, digits, _ and -)'),
  )
    .addHelpText(
      'after',
      `
Without --json only the key goes to stdout, so \`KEY=$(till api-keys create --name ci)\` captures it. Any till
command then runs as this user with TILL_TOKEN=$KEY; other clients send it in \`x-api-key\` or
\`Authorization: Bearer\`. The daemon keeps only a digest: a lost key cannot be shown again, only revoked.`,
    )
    .action(lazy(async () => (await import('./create.js')).run));

  withJson(apiKeys.command('list').description('list API keys (never the keys themselves)')).action(
    lazy(async () => (await import('./list.js')).run),
  );

  withJson(
    apiKeys
      .command('revoke')
      .description('delete an API key; it stops working at once')
      .argument('<id>', 'key id from `till api-keys list`'),
  ).action(lazy(async () => (await import('./revoke.js')).run));
}
