import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

const INGEST_HELP = `
On a terminal, stderr shows how far the run is: for a file, a bar of the file sent with the events sent, inserted
and duplicates and the events a second; from stdin, whose size is unknown, the same counts without a bar. Piped or
redirected, stderr gets no progress, only the summary. A refused batch stops the run (exit 1), naming its lines;
the batches before it stay stored.`;

export function registerEventCommands(program: Command): void {
  const events = program.command('events').description('ingest and list usage events (Polar-compatible /v1/events)');

  withJson(
    events
      .command('ingest')
      .description('ingest events from a JSON Lines file (one event per line), in batches of 1,000')
      .requiredOption('--file <path>', 'the file, or - for standard input')
      .option('--org <id|slug>', 'organization (default: the token’s or the active one)'),
  )
    .addHelpText('after', INGEST_HELP)
    .action(lazy(async () => (await import('./ingest.js')).run));

  withJson(
    events
      .command('list')
      .description('list events, newest first')
      .option('--customer <id>', 'only this customer’s events')
      .option('--external-customer <id>', 'only events sent with this external customer id')
      .option('--name <name>', 'only events with this name')
      .option('--meter <id>', 'only events this meter counts')
      .option('--source <source>', 'user or system')
      .option('--limit <n>', 'how many (at most 100)', '20')
      .option('--org <id|slug>', 'this organization instead of the active one')
      .option('--all-orgs', 'every organization of yours'),
  ).action(lazy(async () => (await import('./list.js')).run));
}
