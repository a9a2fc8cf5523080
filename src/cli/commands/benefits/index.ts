import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

const TYPES = 'custom, discord, github_repository, downloadables, license_keys or meter_credit';

/** The flags of every type's properties; create and update share them (update merges them onto what is there). */
function withPropertyFlags(command: Command): Command {
  return command
    .option('--description <text>', 'what products show for the benefit (3-42 characters)')
    .option('--visibility <visibility>', 'customer portal visibility: public, private or draft')
    .option('--metadata <key=value>', 'metadata entry (repeatable); numbers and true/false are sent as such', collect)
    .option('--note <text>', 'custom: private note shown to customers who have the benefit')
    .option('--guild-id <id>', 'discord: the Discord server (guild) id')
    .option('--role-id <id>', 'discord: the role to grant')
    .option('--kick-member', 'discord: kick the member from the server when the benefit is revoked')
    .option('--no-kick-member', 'discord: keep the member on the server when the benefit is revoked')
    .option('--repository <owner/name>', 'github_repository: the repository, e.g. acme/private-repo')
    .option('--permission <level>', 'github_repository: pull, triage, push, maintain or admin')
    .option(
      '--file <id>',
      'downloadables: a file id from `POST /v1/files/` (repeatable; update replaces the list)',
      collect,
    )
    .option('--archive <id>', 'downloadables: a file id customers no longer get (repeatable)', collect)
    .option('--prefix <text>', 'license_keys: text put before each key')
    .option('--expires <ttl>', 'license_keys: keys expire after e.g. 1year, 6month, 30day ("never" to clear)')
    .option('--activations-limit <n>', 'license_keys: instances a key can be activated on ("none" to clear)')
    .option('--customer-admin', 'license_keys: let customers deactivate their own instances')
    .option('--no-customer-admin', 'license_keys: only the merchant deactivates instances')
    .option('--limit-usage <n>', 'license_keys: usage limit per key ("none" to clear)')
    .option('--units <n>', 'meter_credit: units credited each period')
    .option('--rollover', 'meter_credit: unused units carry over to the next period')
    .option('--no-rollover', 'meter_credit: unused units expire at the end of the period')
    .option('--meter-id <id>', 'meter_credit: the meter credited');
}

export function registerBenefitCommands(program: Command): void {
  const benefits = program
    .command('benefits')
    .description('create, list, update and delete the benefits products grant (/v1/benefits)');

  withJson(
    withPropertyFlags(
      benefits
        .command('create')
        .description('create a benefit and print its id')
        .requiredOption('--type <type>', TYPES)
        .option('--org <id|slug>', 'organization (default: the active one)'),
    ),
  )
    .addHelpText(
      'after',
      `
Examples:
  till benefits create --type custom --description "Private Slack" --note "Join at https://..."
  till benefits create --type license_keys --description "Pro license" --prefix PRO --expires 1year --activations-limit 3
  till benefits create --type discord --description "Members role" --guild-id 1234... --role-id 5678... --kick-member
  till benefits create --type meter_credit --description "API credits" --units 1000 --no-rollover --meter-id <uuid>

Without --json only the id goes to stdout, so \`ID=$(till benefits create ...)\` captures it.`,
    )
    .action(lazy(async () => (await import('./create.js')).run));

  withJson(
    benefits
      .command('list')
      .description('list benefits, newest first')
      .option('--type <type>', `only this type (repeatable): ${TYPES}`, collect)
      .option('--query <text>', 'only benefits whose description contains the text')
      .option('--org <id|slug>', 'only this organization (default: the active one)')
      .option('--all-orgs', 'every organization of yours')
      .option('--page <n>', 'page number (default 1)')
      .option('--limit <n>', 'benefits per page (default 10, at most 100)'),
  ).action(lazy(async () => (await import('./list.js')).run));

  withJson(
    benefits.command('get').description('show one benefit').argument('<id>', 'benefit id from `till benefits list`'),
  ).action(lazy(async () => (await import('./get.js')).run));

  withJson(
    withPropertyFlags(
      benefits
        .command('update')
        .description('change a benefit; property flags are merged onto its current properties (its type cannot change)')
        .argument('<id>', 'benefit id from `till benefits list`'),
    ),
  ).action(lazy(async () => (await import('./update.js')).run));

  withJson(
    benefits
      .command('delete')
      .description('delete a benefit (refused while a product carries it or when it is not deletable)')
      .argument('<id>', 'benefit id from `till benefits list`'),
  ).action(lazy(async () => (await import('./delete.js')).run));
}
