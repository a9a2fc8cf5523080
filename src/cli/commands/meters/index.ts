import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

export function registerMeterCommands(program: Command): void {
  const meters = program
    .command('meters')
    .description('create and read meters: usage events aggregated per customer (Polar-compatible /v1/meters)');

  withJson(
    meters
      .command('create')
      .description('create a meter (events already ingested are counted in the background)')
      .requiredOption('--name <name>', 'name shown to customers')
      .option('--event <name>', 'count events with this name (shorthand for a filter on name)')
      .option('--filter <json>', 'a Polar filter, e.g. {"conjunction":"and","clauses":[…]}')
      .option('--aggregation <func[:property]>', 'count, or sum|max|min|avg|unique with a metadata property', 'count')
      .option('--org <id|slug>', 'organization (default: the active one)'),
  ).action(lazy(async () => (await import('./create.js')).run));

  withJson(
    meters
      .command('list')
      .description('list meters')
      .option('--org <id|slug>', 'this organization instead of the active one')
      .option('--all-orgs', 'every organization of yours'),
  ).action(lazy(async () => (await import('./list.js')).run));

  withJson(meters.command('show').description('show one meter').argument('<id>', 'meter id')).action(
    lazy(async () => (await import('./show.js')).run),
  );

  withJson(
    meters
      .command('quantities')
      .description("draw a meter's quantities over time")
      .argument('<id>', 'meter id')
      .option('--interval <interval>', 'hour, day, week, month or year', 'day')
      .option('--start <datetime>', 'from (ISO 8601; default: 30 intervals ago)')
      .option('--end <datetime>', 'to (ISO 8601; default: now)')
      .option('--customer <id>', 'only this customer')
      .option('--timezone <zone>', 'where periods start (an IANA zone, such as Europe/Paris; default: UTC)'),
  ).action(lazy(async () => (await import('./quantities.js')).run));
}
