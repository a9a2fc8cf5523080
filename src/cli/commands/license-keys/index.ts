import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

export function registerLicenseKeyCommands(program: Command): void {
  const keys = program
    .command('license-keys')
    .description('list, show, update and validate the license keys customers were granted (/v1/license-keys)');

  withJson(
    keys
      .command('list')
      .description('list license keys, newest first')
      .option('--benefit <id>', 'only keys of this benefit')
      .option('--org <id|slug>', 'this organization instead of the active one')
      .option('--all-orgs', 'every organization of yours')
      .option('--page <n>', 'page number (default 1)')
      .option('--limit <n>', 'keys per page (default 10, at most 100)'),
  ).action(lazy(async () => (await import('./list.js')).run));

  withJson(
    keys
      .command('show')
      .description('show one license key with its activations')
      .argument('<id>', 'license key id from `till license-keys list`'),
  ).action(lazy(async () => (await import('./show.js')).run));

  withJson(
    keys
      .command('update')
      .description("change a key's status, usage, limits or expiry")
      .argument('<id>', 'license key id')
      .option('--status <status>', 'granted, revoked or disabled')
      .option('--usage <n>', 'usage counted so far')
      .option('--limit-activations <n>', 'instances the key can be activated on ("none" to clear)')
      .option('--limit-usage <n>', 'usage allowed ("none" to clear)')
      .option('--expires-at <iso>', 'expiry as an ISO 8601 date-time ("never" to clear)'),
  ).action(lazy(async () => (await import('./update.js')).run));

  withJson(
    keys
      .command('validate')
      .description('validate a key as your software would (counts a validation)')
      .argument('<key>', 'the license key')
      .option('--org <id|slug>', 'the organization that issued it (default: your only one)')
      .option('--increment-usage <n>', 'usage to add if the limit allows it'),
  ).action(lazy(async () => (await import('./validate.js')).run));
}
