import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

const CLOCK_HELP = `
The daemon's simulated clock, for testing an integration: the daemon must run with TILL_CLOCK=simulated (otherwise
these answer "not found"). Time only moves forward; advance and set return once everything due on the way (checkout
expiries, cancels at the period end, webhook and mail retries) is done, in time order. Needs the admin token: see
\`till admin token --help\`.`;

export function registerClockCommands(program: Command): void {
  const clock = program.command('clock').description("the daemon's simulated clock (operator, admin token)");

  withJson(clock.command('show').description('print the simulated time'))
    .addHelpText('after', CLOCK_HELP)
    .action(lazy(async () => (await import('./move.js')).show));

  withJson(
    clock
      .command('advance')
      .description('move the time forward by a duration and run what falls due')
      .argument('<duration>', 'a whole number with a unit: s, m, h, d or w (90s, 15m, 12h, 31d, 2w)'),
  )
    .addHelpText('after', CLOCK_HELP)
    .action(lazy(async () => (await import('./move.js')).advance));

  withJson(
    clock
      .command('set')
      .description('move the time forward to an instant and run what falls due')
      .argument('<time>', 'an ISO 8601 time with its offset, e.g. 2027-01-01T00:00:00Z'),
  )
    .addHelpText('after', CLOCK_HELP)
    .action(lazy(async () => (await import('./move.js')).set));
}
