import { request, type Dispatcher } from 'undici';
import { SECRET_PREFIX, generateSecret, signatureHeader } from '../../../core/webhooks/signer.js';
import type { Invocation } from '../../action.js';
import { actingOrg, bearer, signedIn } from '../../context.js';
import { CliError, NotSignedInError, UsageError } from '../../errors.js';
import { info, printLine } from '../../output.js';

interface Options {
  forwardTo: string;
  events?: string[];
  org?: string;
  secret?: string;
  json?: boolean;
}

interface StreamEvent {
  id: string;
  type: string;
  data: string;
}

const RECONNECT_MS = 1_000;
const FORWARD_TIMEOUT_MS = 10_000;

/** Splits a text/event-stream body into events (blank-line separated `field: value` lines; comments ignored). */
export async function* parseEventStream(chunks: AsyncIterable<Buffer | string>): AsyncGenerator<StreamEvent> {
  let buffer = '';
  for await (const chunk of chunks) {
    buffer += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event: Partial<StreamEvent> & { dataLines: string[] } = { dataLines: [] };
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') event.id = value;
        else if (field === 'event') event.type = value;
        else if (field === 'data') event.dataLines.push(value);
      }
      if (event.id && event.type && event.dataLines.length > 0)
        yield { id: event.id, type: event.type, data: event.dataLines.join('\n') };
    }
  }
}

export async function run({ opts, globals }: Invocation<Options>): Promise<number> {
  let forwardTo: URL;
  try {
    forwardTo = new URL(opts.forwardTo);
    if (!/^https?:$/.test(forwardTo.protocol)) throw new Error('not http');
  } catch {
    throw new UsageError(`--forward-to must be an http(s) URL (got "${opts.forwardTo}")`);
  }
  if (opts.secret && !opts.secret.startsWith(SECRET_PREFIX))
    throw new UsageError(`--secret must start with ${SECRET_PREFIX}`);
  const target = signedIn(globals);
  // The organization rule of every command: --org, else the active one, else the user's only one (said on stderr).
  const organizationId = (await actingOrg(target, { org: opts.org, json: opts.json }))?.id;
  const secret = opts.secret ?? generateSecret();
  const wanted = opts.events && opts.events.length > 0 ? new Set(opts.events) : null;

  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);

  info(`Ready! Forwarding events to ${forwardTo.href}. Your webhook signing secret is ${secret} (Ctrl-C to quit)`);
  // One JSON object per line in --json mode, so a script can read the secret and then each delivery as it comes.
  if (opts.json) printLine(JSON.stringify({ ready: true, forward_to: forwardTo.href, secret }));
  let lastEventId: string | null = null;
  let announcedDrop = false;
  while (!controller.signal.aborted) {
    try {
      const query = organizationId ? `?organization_id=${encodeURIComponent(organizationId)}` : '';
      const response: Dispatcher.ResponseData = await request(`${target.url}/v1/webhooks/events/stream${query}`, {
        headers: {
          authorization: `Bearer ${bearer(target)}`,
          accept: 'text/event-stream',
          ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
        },
        signal: controller.signal,
        bodyTimeout: 0,
      });
      if (response.statusCode === 401)
        throw new NotSignedInError('the daemon refused the session; sign in again with `till login`');
      if (response.statusCode !== 200)
        throw new CliError(`the daemon answered ${response.statusCode}: ${(await response.body.text()).slice(0, 300)}`);
      if (announcedDrop) info('Reconnected.');
      announcedDrop = false;
      for await (const event of parseEventStream(response.body as AsyncIterable<Buffer>)) {
        lastEventId = event.id;
        if (wanted && !wanted.has(event.type)) continue;
        await forward(forwardTo, secret, event, opts.json === true);
      }
    } catch (error) {
      if (controller.signal.aborted) break;
      if (error instanceof CliError) throw error;
      if (!announcedDrop) info(`Lost the event stream (${(error as Error).message}); reconnecting…`);
      announcedDrop = true;
    }
    if (!controller.signal.aborted) await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
  }
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  return 0;
}

/** POSTs one event, signed like a real delivery; a failing local endpoint is reported, never fatal. */
async function forward(url: URL, secret: string, event: StreamEvent, json: boolean): Promise<void> {
  const id = `evt_${event.id}`;
  const timestamp = Math.floor(Date.now() / 1000);
  const started = performance.now();
  let status: number | null = null;
  let failure: string | null = null;
  try {
    const response = await request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader([secret], id, timestamp, event.data),
      },
      body: event.data,
      headersTimeout: FORWARD_TIMEOUT_MS,
      bodyTimeout: FORWARD_TIMEOUT_MS,
    });
    status = response.statusCode;
    await response.body.dump();
  } catch (error) {
    failure = (error as Error).message || String(error);
  }
  const ms = Math.round(performance.now() - started);
  if (json) {
    printLine(JSON.stringify({ webhook_id: id, type: event.type, status, error: failure, duration_ms: ms }));
    return;
  }
  const outcome = failure ? `failed: ${failure}` : `[${status}]`;
  printLine(`${new Date().toISOString()}  --> ${event.type} [${id}]  <-- ${outcome} POST ${url.href} (${ms} ms)`);
}
