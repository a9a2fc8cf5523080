import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

export function registerUserCommands(program: Command): void {
  const user = program.command('user').description("the signed-in user's profile");
  withJson(
    user
      .command('update')
      .description('change the display name or image')
      .option('--name <name>', 'new display name')
      .option('--image <url>', 'new image URL ("" removes the image)'),
  ).action(lazy(async () => (await import('./update.js')).run));
}
