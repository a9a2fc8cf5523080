import { Box, Text, useStdout } from 'ink';
import type { WebhookDeliveryWire } from '../../../core/webhooks/schemas.js';
import { columns } from '../org-dashboard/components/section.js';
import { Footer } from './components/footer.js';
import { List, type Row } from './components/list.js';
import type { EndpointHealth, Snapshot, WebhooksData } from './data.js';
import { selectedRow, type ViewState } from './model.js';
import { REFRESH_MS, useDashboard } from './use-dashboard.js';

/** The time of day of an ISO timestamp (UTC, as the daemon sends it): enough to follow retries as they land. */
const clock = (iso: string) => iso.slice(11, 19);

const code = (delivery: WebhookDeliveryWire) =>
  delivery.http_code === null ? 'no response' : String(delivery.http_code);

function health({ attempts, succeeded, last }: EndpointHealth): string {
  if (attempts === 0) return 'no recent deliveries';
  const rate = `${Math.round((succeeded / attempts) * 100)}% ok (${succeeded}/${attempts})`;
  return `${rate}  last ${code(last!)} at ${clock(last!.created_at)}`;
}

function endpointRows(snapshot: Snapshot): Row[] {
  const texts = columns(
    snapshot.endpoints.map((entry) => [
      entry.endpoint.enabled ? 'enabled' : 'disabled',
      entry.endpoint.url,
      entry.endpoint.name ?? '',
      health(entry),
    ]),
  );
  return snapshot.endpoints.map((entry, index) => ({
    key: entry.endpoint.id,
    text: texts[index]!,
    bad: !entry.endpoint.enabled || (entry.last !== null && !entry.last.succeeded),
  }));
}

/**
 * Where the event stands now, which may differ from this one attempt (a later retry or replay may have gone
 * through): worded as the event's, so a failed attempt is never read as "succeeded".
 */
function eventState(delivery: WebhookDeliveryWire): string {
  const event = delivery.webhook_event;
  if (event.status === 'pending') return event.next_attempt_at ? `retry at ${clock(event.next_attempt_at)}` : 'queued';
  if (event.attempts === delivery.attempt) return event.status === 'succeeded' ? 'delivered' : `event ${event.status}`;
  return `event ${event.status} at attempt ${event.attempts}`;
}

function deliveryRows(snapshot: Snapshot): Row[] {
  const texts = columns(
    snapshot.deliveries.map((delivery) => [
      clock(delivery.created_at),
      `${delivery.succeeded ? '✓' : '✗'} ${code(delivery)}`,
      `${delivery.duration_ms} ms`,
      `attempt ${delivery.attempt}`,
      delivery.webhook_event.type,
      eventState(delivery),
      delivery.webhook_event.id,
    ]),
  );
  return snapshot.deliveries.map((delivery, index) => ({
    key: delivery.id,
    text: texts[index]!,
    bad: !delivery.succeeded,
  }));
}

/** Lines the screen spends on everything but the delivery rows: header, titles, margins, endpoint rows, footer. */
const CHROME_LINES = 11;

/** The screen, given its data layer; `initial` skips the first load when the caller already has the data. */
export function WebhooksDashboard({
  data,
  initial,
  refreshMs = REFRESH_MS,
}: {
  data: WebhooksData;
  initial?: Snapshot;
  refreshMs?: number;
}) {
  const { snapshot, view } = useDashboard(data, initial, refreshMs);
  const { stdout } = useStdout();
  if (!snapshot) {
    return (
      <Box flexDirection="column">
        <Text dimColor>Loading webhooks…</Text>
        <Footer mode={view.mode} section={view.section} status={view.status} />
      </Box>
    );
  }
  const focused = (section: ViewState['section']) => view.section === section;
  // Deliveries take what the terminal has left; a screen taller than the terminal would scroll the header away.
  const deliveryLines = Math.max(5, (stdout.rows || 40) - CHROME_LINES - snapshot.endpoints.length);
  return (
    <Box flexDirection="column">
      <Box>
        <Text bold>Webhooks</Text>
        <Text>{`  ${snapshot.scope}`}</Text>
        <Text dimColor>{`  updated ${clock(snapshot.loadedAt.toISOString())} UTC, every ${refreshMs / 1000} s`}</Text>
      </Box>
      <List
        title="Endpoints"
        focused={focused('endpoints')}
        rows={endpointRows(snapshot)}
        selected={selectedRow(view, snapshot, 'endpoints')}
        size={Math.max(snapshot.endpoints.length, 1)}
        empty="no endpoints (add one with `till webhooks endpoints create <url>`)"
      />
      <List
        title="Deliveries, newest first"
        focused={focused('deliveries')}
        rows={deliveryRows(snapshot)}
        selected={selectedRow(view, snapshot, 'deliveries')}
        size={deliveryLines}
        empty="no deliveries yet"
      />
      <Footer mode={view.mode} section={view.section} status={view.status} />
    </Box>
  );
}
