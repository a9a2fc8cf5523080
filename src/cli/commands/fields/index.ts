import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

const TYPES = 'text, number, date, checkbox or select';

/** The flags of every type's properties; update merges them onto the field's current properties. */
function withPropertyFlags(command: Command): Command {
  return command
    .option(
      '--slug <slug>',
      'key of the answer in custom_field_data (lowercase letters, digits, - and _; unique per organization)',
    )
    .option('--name <name>', 'name merchants see')
    .option('--metadata <key=value>', 'metadata entry (repeatable); numbers and true/false are sent as such', collect)
    .option('--label <text>', 'label the checkout form shows')
    .option('--help-text <text>', 'help text the checkout form shows')
    .option('--placeholder <text>', 'placeholder the checkout form shows')
    .option('--textarea', 'text: a multi-line input')
    .option('--no-textarea', 'text: a one-line input')
    .option('--min-length <n>', 'text: shortest answer accepted')
    .option('--max-length <n>', 'text: longest answer accepted')
    .option('--ge <value>', 'number: smallest value; date: earliest date (YYYY-MM-DD or Unix seconds)')
    .option('--le <value>', 'number: largest value; date: latest date (YYYY-MM-DD or Unix seconds)')
    .option('--option <value=label>', 'select: a choice (repeatable; update replaces the list)', collect);
}

export function registerFieldCommands(program: Command): void {
  const fields = program
    .command('fields')
    .description('create, list, update and delete the custom fields checkouts ask for (/v1/custom-fields)');

  withJson(
    withPropertyFlags(
      fields
        .command('create')
        .description('create a custom field and print its id')
        .requiredOption('--type <type>', TYPES)
        .option('--org <id|slug>', 'organization (default: the active one)'),
    ),
  )
    .addHelpText(
      'after',
      `
Examples:
  till fields create --type select --slug size --name Size --option s=Small --option m=Medium
  till fields create --type text --slug company --name Company --label "Company name" --max-length 80
  till fields create --type checkbox --slug terms --name Terms --label "I accept the terms"

Without --json only the id goes to stdout, so \`ID=$(till fields create ...)\` captures it.`,
    )
    .action(lazy(async () => (await import('./create.js')).run));

  withJson(
    fields
      .command('list')
      .description('list custom fields by slug')
      .option('--type <type>', `only this type (repeatable): ${TYPES}`, collect)
      .option('--query <text>', 'only fields whose name or slug contains the text')
      .option('--org <id|slug>', 'only this organization (default: the active one)')
      .option('--all-orgs', 'every organization of yours')
      .option('--page <n>', 'page number (default 1)')
      .option('--limit <n>', 'fields per page (default 10, at most 100)'),
  ).action(lazy(async () => (await import('./list.js')).run));

  withJson(
    withPropertyFlags(
      fields
        .command('update')
        .description(
          'change a custom field; property flags are merged onto its current properties (its type cannot change)',
        )
        .argument('<id>', 'field id from `till fields list`'),
    ),
  ).action(lazy(async () => (await import('./update.js')).run));

  withJson(
    fields
      .command('delete')
      .description('delete a custom field; products stop asking for it')
      .argument('<id>', 'field id from `till fields list`'),
  ).action(lazy(async () => (await import('./delete.js')).run));
}
