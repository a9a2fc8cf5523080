import type { WebhookDeliveryWire } from '../../../core/webhooks/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { UsageError } from '../../errors.js';
import { info, printJson } from '../../output.js';
import { fetchAll } from '../../pages.js';

interface Options {
  failed?: boolean;
  since: string;
  endpoint?: string[];
  json?: boolean;
}

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `1h`, `30m`, `2d` back from now, or an ISO time. */
export function sinceTime(value: string, now = Date.now()): Date {
  const relative = /^(\d+)([smhd])$/.exec(value);
  if (relative) return new Date(now - Number(relative[1]) * UNITS[relative[2]!]!);
  const at = Date.parse(value);
  if (Number.isNaN(at))
    throw new UsageError(`--since must be a duration like 1h, 30m, 2d or an ISO time (got "${value}")`);
  return new Date(at);
}

/** Redraws one line on a terminal; nothing when stderr is a pipe (scripts read the final summary instead). */
function progress(done: number, total: number): void {
  if (!process.stderr.isTTY) return;
  const width = 30;
  const filled = total === 0 ? width : Math.round((done / total) * width);
  process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`);
  if (done === total) process.stderr.write('\n');
}

export async function replay({ args, opts, globals }: Invocation<Options>): Promise<void> {
  const target = signedIn(globals);
  const single = args[0] === undefined ? undefined : String(args[0]);
  if (single && opts.failed) throw new UsageError('give an event id or --failed, not both');
  if (!single && !opts.failed)
    throw new UsageError('give an event id, or --failed to replay every failed event (see --since)');
  if (single) {
    await call(target, 'POST', `/v1/webhooks/events/${encodeURIComponent(single)}/redeliver`);
    if (opts.json) printJson({ id: single, scheduled: true });
    else info(`Webhook event ${single} will be sent again (same webhook-id).`);
    return;
  }

  // The log lists attempts; an event is replayed when its latest attempt in the window failed.
  const since = sinceTime(opts.since);
  const query = new URLSearchParams({ start_timestamp: since.toISOString() });
  for (const id of opts.endpoint ?? []) query.append('endpoint_id', id);
  const latest = new Map<string, boolean>();
  // Newest first: the first attempt seen for an event is its latest.
  for (const delivery of await fetchAll<WebhookDeliveryWire>(target, '/v1/webhooks/deliveries', query)) {
    if (!latest.has(delivery.webhook_event.id)) latest.set(delivery.webhook_event.id, delivery.succeeded);
  }
  const failed = [...latest].filter(([, succeeded]) => !succeeded).map(([id]) => id);
  const replayed: string[] = [];
  const refused: Array<{ id: string; error: string }> = [];
  progress(0, failed.length);
  for (const [index, id] of failed.entries()) {
    try {
      await call(target, 'POST', `/v1/webhooks/events/${encodeURIComponent(id)}/redeliver`);
      replayed.push(id);
    } catch (error) {
      // An event whose endpoint was disabled or deleted since cannot be sent; the others still are.
      refused.push({ id, error: (error as Error).message });
    }
    progress(index + 1, failed.length);
  }
  if (opts.json) printJson({ since: since.toISOString(), replayed, refused });
  else
    info(
      `Replaying ${replayed.length} failed event(s) since ${since.toISOString()}${refused.length ? `; ${refused.length} could not be: ${refused.map((r) => `${r.id} (${r.error})`).join(', ')}` : ''}.`,
    );
}
