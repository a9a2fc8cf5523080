import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function registerTokenCommands(program: Command): void {
  const tokens = program
    .command('tokens')
    .description('create, list and revoke organization access tokens for the /v1 (Polar-compatible) API');

  withJson(
    tokens
      .command('create')
      .description('create an organization access token and print it (shown this once)')
      .requiredOption('--comment <text>', 'what the token is for (1-255 characters)')
      .option('--scope <scope>', 'a scope the token holds, e.g. products:read (repeatable)', collect)
      .option('--scopes <list>', 'scopes as one comma-separated list, e.g. products:read,products:write')
      .option('--expires-in <duration>', 'ISO 8601 duration such as P30D or PT12H, or seconds (default: never)')
      .option('--org <id|slug>', 'organization (default: the active one)'),
  )
    .addHelpText(
      'after',
      `
Without --json only the token goes to stdout, so \`TOKEN=$(till tokens create --comment ci --scope products:read)\`
captures it. Polar clients send it as \`Authorization: Bearer\`, e.g. new Polar({ accessToken, serverURL }).
The daemon keeps only a digest: a lost token cannot be shown again, only revoked.`,
    )
    .action(lazy(async () => (await import('./create.js')).run));

  withJson(
    tokens
      .command('list')
      .description('list organization access tokens (never the tokens themselves)')
      .option('--org <id|slug>', 'only this organization (default: the active one)')
      .option('--all-orgs', 'every organization of yours'),
  ).action(lazy(async () => (await import('./list.js')).run));

  withJson(
    tokens
      .command('revoke')
      .description('delete an organization access token; it stops working at once')
      .argument('<id>', 'token id from `till tokens list`'),
  ).action(lazy(async () => (await import('./revoke.js')).run));
}
