import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

export function registerProfileCommands(program: Command): void {
  const profile = program
    .command('profile')
    .description('named profiles in the config file (a daemon URL and a session each)');

  withJson(profile.command('list').description('list profiles; the current one is marked')).action(
    lazy(async () => (await import('./list.js')).run),
  );

  withJson(
    profile.command('use').description('make a profile the current one').argument('<name>', 'profile name'),
  ).action(lazy(async () => (await import('./use.js')).run));
}
