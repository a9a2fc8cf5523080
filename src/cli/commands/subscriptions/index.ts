import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';
import { withExportOptions } from '../../export-options.js';

export function registerSubscriptionCommands(program: Command): void {
  const subscriptions = program
    .command('subscriptions')
    .description(
      "list, show, cancel, uncancel, revoke, change plan, pause and resume an organization's subscriptions (/v1/subscriptions)",
    );
  withJson(
    subscriptions
      .command('list')
      .description('list subscriptions, most recently started first (every page)')
      .option('--customer <id>', 'only this customer’s subscriptions')
      .option('--product <id>', 'only subscriptions of this product')
      .option('--status <status>', 'only this status: active, trialing, past_due, canceled, …')
      .option('--active', 'only active or trialing ones')
      .option('--org <id|slug>', 'only this organization (default: the active one)')
      .option('--all-orgs', 'every organization of yours'),
  ).action(lazy(async () => (await import('./list.js')).run));
  withJson(
    subscriptions
      .command('show')
      .description('show one subscription and its timeline (status changes, orders and their payments)')
      .argument('<id>', 'subscription id'),
  ).action(lazy(async () => (await import('./show.js')).run));
  withExportOptions(
    subscriptions
      .command('export')
      .description(
        "write subscriptions as CSV (Polar's columns), oldest first; a progress bar on stderr at a terminal",
      ),
    'subscriptions',
    'email, started_at, product, amount, currency, status, recurring_interval, customer_name, billing_name, billing_country, net_amount, discount, seats, current_period_start, current_period_end, cancel_at_period_end, canceled_at, ends_at, ended_at, cancellation_reason, trial_start, trial_end',
  ).action(lazy(async () => (await import('./export.js')).run));
  withJson(
    subscriptions
      .command('extend-trial')
      .description('move the end of a trial (or add one), or end it now and bill')
      .argument('<id>', 'subscription id')
      .requiredOption('--until <time>', 'an ISO time in the future, or "now"'),
  ).action(lazy(async () => (await import('./trial.js')).extendTrial));
  const reasons =
    'customer_service, low_quality, missing_features, switched_service, too_complex, too_expensive, unused, other';
  withJson(
    subscriptions
      .command('cancel')
      .description('cancel at the end of the current period (the customer keeps access until then)')
      .argument('<id>', 'subscription id')
      .option('--reason <reason>', `why: ${reasons}`)
      .option('--comment <text>', "the customer's own words"),
  ).action(lazy(async () => (await import('./change.js')).cancel));
  withJson(
    subscriptions
      .command('uncancel')
      .description('undo a cancellation at the period end')
      .argument('<id>', 'subscription id'),
  ).action(lazy(async () => (await import('./change.js')).uncancel));
  withJson(
    subscriptions
      .command('revoke')
      .description('end the subscription now')
      .argument('<id>', 'subscription id')
      .option('--reason <reason>', `why: ${reasons}`)
      .option('--comment <text>', "the customer's own words"),
  ).action(lazy(async () => (await import('./change.js')).revoke));
  withJson(
    subscriptions
      .command('change')
      .description(
        'move to another product: charge the difference now (invoice), on the next bill (prorate) or switch at the period end (next_period)',
      )
      .argument('<id>', 'subscription id')
      .option('--product <id>', 'the product to move to')
      .option('--proration <behavior>', "invoice, prorate or next_period (default: the organization's setting)")
      .option('--clear-pending', 'take back a change waiting for the period end'),
  ).action(lazy(async () => (await import('./plan.js')).change));
  withJson(
    subscriptions
      .command('pause')
      .description('pause now (no renewals, benefits revoked) or at the end of the current period')
      .argument('<id>', 'subscription id')
      .option('--at-period-end', 'pause when the current period ends (again without it: take that back, or pause now)')
      .option('--resumes-at <iso>', 'resume on its own at this time (after the period end for --at-period-end)'),
  ).action(lazy(async () => (await import('./plan.js')).pause));
  withJson(
    subscriptions
      .command('resume')
      .description('resume a paused subscription now: a new period starts and is charged at once')
      .argument('<id>', 'subscription id'),
  ).action(lazy(async () => (await import('./plan.js')).resume));
}
