import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

export function registerRefundCommands(program: Command): void {
  const refunds = program
    .command('refunds')
    .description('refund orders and list refunds (Polar-compatible /v1/refunds)');
  withJson(
    refunds
      .command('create')
      .description('refund (part of) an order; asks for confirmation at a terminal')
      .requiredOption('--order <id>', 'the order to refund')
      .option(
        '--amount <minor-units>',
        'net amount in minor units, e.g. 500 for 5.00 (default: everything still refundable); its tax is refunded with it',
      )
      .option(
        '--reason <reason>',
        'duplicate, fraudulent, customer_request, service_disruption, satisfaction_guarantee or other',
        'customer_request',
      )
      .option('--comment <text>', 'an internal note')
      .option('--revoke-benefits', "also revoke what the order gave (a subscription order's subscription ends now)")
      .option('-y, --yes', 'do not ask for confirmation (needed without a terminal)'),
  ).action(lazy(async () => (await import('./create.js')).run));
  withJson(
    refunds
      .command('list')
      .description('list refunds, newest first (every page)')
      .option('--order <id>', 'only refunds of this order')
      .option('--customer <id>', 'only refunds to this customer')
      .option('--org <id|slug>', 'only this organization (default: the active one)')
      .option('--all-orgs', 'every organization of yours'),
  ).action(lazy(async () => (await import('./list.js')).run));
}
