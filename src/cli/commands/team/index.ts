import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

const ORG_OPTION = ['--org <id|slug>', 'organization (default: the active one)'] as const;

export function registerTeamCommands(program: Command): void {
  const team = program
    .command('team')
    .description("manage an organization's teams (the daemon needs TILL_ORG_TEAMS=on)");

  withJson(
    team
      .command('create')
      .description('create a team and print its id')
      .argument('<name>')
      .option(...ORG_OPTION)
      .option('--if-not-exists', 'succeed without changes when the organization already has a team of this name'),
  ).action(lazy(async () => (await import('./create.js')).run));
  withJson(
    team
      .command('list')
      .description('list teams')
      .option(...ORG_OPTION),
  ).action(lazy(async () => (await import('./list.js')).run));
  withJson(team.command('rename').description('rename a team').argument('<team id>').argument('<name>')).action(
    lazy(async () => (await import('./rename.js')).run),
  );
  withJson(
    team
      .command('remove')
      .description('remove a team')
      .argument('<team id>')
      .option(...ORG_OPTION),
  ).action(lazy(async () => (await import('./remove.js')).run));
  withJson(
    team
      .command('add-member')
      .description('add an organization member to a team')
      .argument('<team id>')
      .argument('<user>', 'user id or e-mail')
      .option(...ORG_OPTION),
  ).action(lazy(async () => (await import('./add-member.js')).run));
  withJson(
    team
      .command('remove-member')
      .description('take a member out of a team')
      .argument('<team id>')
      .argument('<user>', 'user id or e-mail')
      .option(...ORG_OPTION),
  ).action(lazy(async () => (await import('./remove-member.js')).run));
}
