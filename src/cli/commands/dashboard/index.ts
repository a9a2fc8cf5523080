import type { Command } from 'commander';
import { lazy } from '../../action.js';

export function registerDashboardCommand(program: Command): void {
  program
    .command('dashboard')
    .description('revenue at a glance in the terminal: MRR and revenue charts, live orders, past-due subscriptions')
    .option('--org <id|slug>', 'organization (default: the active one)')
    .addHelpText(
      'after',
      `
Keys: 1-4 range (7d, 30d, 90d, 1y) · i/I interval · Tab section · ↑/↓ row · on a past-due subscription r retries
the charge now, c cancels at the period end · o opens the customer (state and a portal link) · q quits.
Needs a terminal; scripts use \`till metrics --json\`.`,
    )
    .action(lazy(async () => (await import('./run.js')).run));
}
