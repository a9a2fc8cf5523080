import { WEBHOOK_EVENT_TYPES, type WebhookEndpointWire } from '../../../core/webhooks/schemas.js';
import type { Invocation } from '../../action.js';
import { call, createIn, orgFilter, signedIn, type OrgChoice } from '../../context.js';
import { UsageError } from '../../errors.js';
import { info, printJson, printLine, printTable } from '../../output.js';
import type { Page } from '../../pages.js';

function show(endpoint: WebhookEndpointWire, json: boolean | undefined): void {
  if (json) printJson(endpoint);
  else
    printTable(
      ['ID', 'URL', 'ENABLED', 'EVENTS'],
      [[endpoint.id, endpoint.url, endpoint.enabled ? 'yes' : 'no', endpoint.events.join(',')]],
    );
}

export async function create({
  args,
  opts,
  globals,
}: Invocation<{ event?: string[]; name?: string; org?: string; json?: boolean }>): Promise<void> {
  const target = signedIn(globals);
  // No --event means every type, as Stripe's CLI defaults to `*`: an endpoint subscribed to nothing would never
  // receive a delivery, which nobody creating one wants.
  const all = !opts.event?.length;
  const body: Record<string, unknown> = {
    url: String(args[0]),
    format: 'raw',
    events: opts.event ?? WEBHOOK_EVENT_TYPES,
  };
  if (opts.name) body.name = opts.name;
  await createIn(target, body, opts);
  const endpoint = await call<WebhookEndpointWire>(target, 'POST', '/v1/webhooks/endpoints', { body });
  if (opts.json) {
    printJson(endpoint);
    return;
  }
  // Only the secret on stdout, so SECRET=$(till webhooks endpoints create ...) captures it.
  printLine(endpoint.secret);
  const subscribed = all
    ? `all ${endpoint.events.length} event types, since no --event was given`
    : `${endpoint.events.length} event types`;
  info(`Created webhook endpoint ${endpoint.id} for ${endpoint.url} (${subscribed}).`);
}

export async function list({ opts, globals }: Invocation<OrgChoice>): Promise<void> {
  const target = signedIn(globals);
  const query = new URLSearchParams({ limit: '100' });
  await orgFilter(target, query, opts);
  const page = await call<Page<WebhookEndpointWire>>(target, 'GET', `/v1/webhooks/endpoints?${query}`);
  if (opts.json) {
    printJson(page.items);
    return;
  }
  printTable(
    ['ID', 'URL', 'ENABLED', 'EVENTS', 'NAME'],
    page.items.map((endpoint) => [
      endpoint.id,
      endpoint.url,
      endpoint.enabled ? 'yes' : 'no',
      endpoint.events.join(','),
      endpoint.name ?? '',
    ]),
  );
}

export async function update({
  args,
  opts,
  globals,
}: Invocation<{
  endpointUrl?: string;
  event?: string[];
  name?: string;
  enable?: boolean;
  disable?: boolean;
  json?: boolean;
}>): Promise<void> {
  if (opts.enable && opts.disable) throw new UsageError('give --enable or --disable, not both');
  const body: Record<string, unknown> = {};
  if (opts.endpointUrl) body.url = opts.endpointUrl;
  if (opts.event) body.events = opts.event;
  if (opts.name !== undefined) body.name = opts.name;
  if (opts.enable) body.enabled = true;
  if (opts.disable) body.enabled = false;
  if (Object.keys(body).length === 0)
    throw new UsageError('nothing to change: give --endpoint-url, --event, --name, --enable or --disable');
  const endpoint = await call<WebhookEndpointWire>(
    signedIn(globals),
    'PATCH',
    `/v1/webhooks/endpoints/${encodeURIComponent(String(args[0]))}`,
    { body },
  );
  show(endpoint, opts.json);
}

export async function remove({ args, globals }: Invocation): Promise<void> {
  await call(signedIn(globals), 'DELETE', `/v1/webhooks/endpoints/${encodeURIComponent(String(args[0]))}`);
  info(`Deleted webhook endpoint ${String(args[0])}.`);
}

export async function rotate({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const endpoint = await call<WebhookEndpointWire>(
    signedIn(globals),
    'PATCH',
    `/v1/webhooks/endpoints/${encodeURIComponent(String(args[0]))}/secret`,
  );
  if (opts.json) {
    printJson(endpoint);
    return;
  }
  printLine(endpoint.secret);
  info('New secret issued; deliveries carry a signature with the old one too for the next 24 hours.');
}
