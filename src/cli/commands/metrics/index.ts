import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

const list = (value: string, previous: string[] = []) => [
  ...previous,
  ...value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean),
];

export function registerMetricsCommand(program: Command): void {
  withJson(
    program
      .command('metrics')
      .description("an organization's revenue figures per period (Polar-compatible GET /v1/metrics/)")
      .option('--start <date>', 'first day, YYYY-MM-DD (default: 29 days before --end)')
      .option('--end <date>', 'last day, YYYY-MM-DD (default: today, UTC)')
      .option('--interval <interval>', 'one period per hour, day, week, month or year', 'day')
      .option('--timezone <zone>', 'IANA time zone the periods start in (default: UTC)')
      .option('--product <id>', 'only these products (comma-separated or repeated)', list)
      .option(
        '--metric <slug>',
        'only these metrics (comma-separated or repeated), e.g. revenue,monthly_recurring_revenue',
        list,
      )
      .option('--org <id|slug>', 'organization (default: the active one)'),
  )
    .addHelpText(
      'after',
      `
The table has one row per period and a TOTAL row; amounts are in the organization's currency, ratios in percent.
Without --metric it shows revenue, net revenue, orders, MRR, active, new and canceled subscriptions.
--json prints the daemon's answer unchanged: {periods, totals, metrics}, amounts in minor units.`,
    )
    .action(lazy(async () => (await import('./run.js')).run));
}
