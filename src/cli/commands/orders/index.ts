import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

export function registerOrderCommands(program: Command): void {
  const orders = program
    .command('orders')
    .description("list and show an organization's orders (Polar-compatible /v1/orders)");
  withJson(
    orders
      .command('list')
      .description('list orders, newest first (every page)')
      .option('--customer <id>', 'only this customer’s orders')
      .option('--product <id>', 'only orders of this product')
      .option('--subscription <id>', 'only orders of this subscription')
      .option('--status <status>', 'only orders in this status: paid, refunded, partially_refunded, pending')
      .option('--org <id|slug>', 'only this organization (default: the active one)')
      .option('--all-orgs', 'every organization of yours'),
  ).action(lazy(async () => (await import('./list.js')).run));
  withJson(orders.command('show').description('show one order').argument('<id>', 'order id')).action(
    lazy(async () => (await import('./show.js')).run),
  );
}
