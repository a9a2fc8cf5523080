import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';
import { withExportOptions } from '../../export-options.js';

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
  withExportOptions(
    orders
      .command('export')
      .description("write orders as CSV (Polar's columns), oldest first; a progress bar on stderr at a terminal"),
    'orders',
    'email, created_at, product, net_amount, currency, status, invoice_number, customer_name, billing_name, billing_country, subtotal_amount, discount_amount, tax_amount, total_amount, refunded_amount, billing_reason',
  ).action(lazy(async () => (await import('./export.js')).run));
}
