import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerWebhookCommands(program: Command): void {
  const webhooks = program
    .command('webhooks')
    .description('webhook endpoints, the delivery log, replay, and checking a received delivery');
  const endpoints = webhooks.command('endpoints').description('create, list, update and delete webhook endpoints');
  const endpointsModule = async () => await import('./endpoints.js');

  withJson(
    endpoints
      .command('create')
      .description('create an endpoint and print its signing secret (whsec_...)')
      .argument('<url>', 'where events are POSTed')
      .option(
        '--event <type>',
        'an event type to send, e.g. order.paid (repeatable; default: every event type)',
        collect,
      )
      .option('--name <name>', 'a name to tell endpoints apart')
      .option('--org <id|slug>', 'organization (default: the active one)'),
  )
    .addHelpText(
      'after',
      `
Without --event the endpoint is subscribed to every event type (like Stripe's CLI defaulting to "*"), and the
command says so; \`till webhooks endpoints update <id> --event ...\` narrows it later.`,
    )
    .action(lazy(async () => (await endpointsModule()).create));
  withJson(
    endpoints
      .command('list')
      .description('list endpoints')
      .option('--org <id|slug>', 'only this organization (default: the active one)')
      .option('--all-orgs', 'every organization of yours'),
  ).action(lazy(async () => (await endpointsModule()).list));
  withJson(
    endpoints
      .command('update')
      .description('change an endpoint; --enable turns a disabled one back on')
      .argument('<id>', 'endpoint id')
      .option('--endpoint-url <url>', "new URL (--url is the daemon's)")
      .option('--event <type>', 'replace the subscribed event types (repeatable)', collect)
      .option('--name <name>', 'new name')
      .option('--enable', 'enable the endpoint')
      .option('--disable', 'disable the endpoint (waiting events are skipped)'),
  ).action(lazy(async () => (await endpointsModule()).update));
  withJson(
    endpoints.command('delete').description('delete an endpoint and its delivery log').argument('<id>', 'endpoint id'),
  ).action(lazy(async () => (await endpointsModule()).remove));
  withJson(
    endpoints
      .command('rotate-secret')
      .description('issue a new secret; the old one keeps signing (a second signature) for 24 hours')
      .argument('<id>', 'endpoint id'),
  ).action(lazy(async () => (await endpointsModule()).rotate));

  withJson(
    webhooks
      .command('deliveries')
      .description('the delivery log: every attempt, newest first')
      .option('--endpoint <id>', 'only this endpoint (repeatable)', collect)
      .option('--org <id|slug>', "only this organization's endpoints (default: the active one's)")
      .option('--all-orgs', 'every organization of yours')
      .option('--event-type <type>', 'only this event type (repeatable)', collect)
      .option('--failed', 'only failed attempts')
      .option('--succeeded', 'only successful attempts')
      .option('--since <iso>', 'attempts at or after this time')
      .option('--until <iso>', 'attempts at or before this time')
      .option('--page <n>', 'page number', '1')
      .option('--limit <n>', 'attempts per page (at most 100)', '20'),
  ).action(lazy(async () => (await import('./deliveries.js')).list));
  withJson(
    webhooks
      .command('replay')
      .description('send a webhook event again, with the same webhook-id; or every failed one with --failed')
      .argument('[event-id]', 'webhook event id (the webhook-id header)')
      .option('--failed', 'replay every event whose latest attempt failed (with --since)')
      .option('--since <duration|iso>', 'with --failed: how far back, e.g. 1h, 30m, 2d, or an ISO time', '1h')
      .option('--endpoint <id>', 'with --failed: only this endpoint (repeatable)', collect),
  ).action(lazy(async () => (await import('./replay.js')).replay));
  // A screen, not data: no --json (the hint it prints without a terminal names the commands that have it).
  webhooks
    .command('dashboard')
    .description(
      'interactive screen: live deliveries, endpoint health, replay of the selected event with r (needs a terminal)',
    )
    .option('--org <id|slug>', 'only this organization (default: every one you can see)')
    .option('--endpoint <id>', 'only this endpoint and its deliveries')
    .action(lazy(async () => (await import('./dashboard.js')).run));
  webhooks
    .command('verify')
    .description(
      'check that a captured delivery (JSON {"headers": {...}, "body": "..."} on stdin) was signed with the secret',
    )
    .requiredOption('--secret-file <file>', 'file holding the endpoint secret (whsec_...)')
    .option('--at <unix-seconds>', 'check the timestamp as of this time instead of now (for old captures)')
    .addHelpText(
      'after',
      `
Input: one JSON object, {"headers": {"webhook-id": "...", "webhook-timestamp": "...", "webhook-signature": "..."},
"body": "<the raw request body, exactly as received>"}. Prints "authentic" and exits 0, or prints why not
(Missing required headers; No matching signature found; Message timestamp too old / too new; tolerance 300 s)
and exits 1. The secret is tried both as Polar keys it (its UTF-8 bytes) and as Standard Webhooks does (base64 after whsec_).`,
    )
    .action(lazy(async () => (await import('./verify.js')).run));
}
