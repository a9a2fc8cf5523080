import { describe, expect, it } from 'vitest';
import type { WebhookDeliveryWire } from '../../src/core/webhooks/schemas.js';
import { endpointHealth, type EndpointSummary, type Snapshot } from '../../src/cli/tui/webhooks-dashboard/data.js';
import {
  followSelection,
  initialView,
  NO_KEY,
  press,
  splitInput,
  visibleWindow,
  type KeyPress,
  type ViewState,
} from '../../src/cli/tui/webhooks-dashboard/model.js';

// The key bindings and the health figures without a terminal or a daemon; tests/cli/webhooks-dashboard.test.tsx
// drives the same keys through Ink against a real daemon.

const key = (overrides: Partial<KeyPress> = {}) => ({ ...NO_KEY, ...overrides });

const endpoint = (id: string, enabled = true): EndpointSummary => ({
  id,
  url: `https://example.com/${id}`,
  name: null,
  enabled,
  events: ['order.paid'],
  organization_id: 'o',
});

function delivery(id: string, endpointId: string, eventId: string, httpCode: number | null): WebhookDeliveryWire {
  const succeeded = httpCode !== null && httpCode < 300;
  return {
    created_at: '2025-01-01T12:00:00.000Z',
    modified_at: null,
    id,
    succeeded,
    http_code: httpCode,
    response: null,
    webhook_endpoint_id: endpointId,
    attempt: 1,
    duration_ms: 5,
    webhook_event: {
      created_at: '2025-01-01T12:00:00.000Z',
      modified_at: null,
      id: eventId,
      last_http_code: httpCode,
      succeeded,
      skipped: false,
      payload: '{}',
      type: 'order.paid',
      is_archived: false,
      webhook_endpoint_id: endpointId,
      status: succeeded ? 'succeeded' : 'pending',
      attempts: 1,
      next_attempt_at: succeeded ? null : '2025-01-01T12:00:04.000Z',
    },
  };
}

// Newest first, as the daemon lists them.
const deliveries = [delivery('d3', 'a', 'e3', 200), delivery('d2', 'a', 'e2', 500), delivery('d1', 'b', 'e1', null)];
const snapshot: Snapshot = {
  scope: 'Acme',
  endpoints: endpointHealth([endpoint('a'), endpoint('b', false), endpoint('c')], deliveries),
  deliveries,
  loadedAt: new Date(),
};

function run(keys: Array<[string, Partial<KeyPress>?]>, state: ViewState = initialView, on: Snapshot = snapshot) {
  let outcome = { state } as ReturnType<typeof press>;
  for (const [input, overrides] of keys) outcome = press(outcome.state, on, input, key(overrides));
  return outcome;
}

describe('webhooks dashboard health', () => {
  it('counts each endpoint’s recent attempts and successes and keeps its newest attempt as the last', () => {
    const [a, b, c] = snapshot.endpoints;
    expect(a).toMatchObject({ attempts: 2, succeeded: 1 });
    expect(a!.last?.id).toBe('d3');
    expect(b).toMatchObject({ attempts: 1, succeeded: 0, endpoint: { enabled: false } });
    expect(b!.last?.http_code).toBeNull();
    expect(c).toMatchObject({ attempts: 0, succeeded: 0, last: null });
  });
});

describe('webhooks dashboard keys', () => {
  it('starts on the deliveries, quits on q and Esc, and Esc in the prompt only declines', () => {
    expect(initialView.section).toBe('deliveries');
    expect(run([['q']]).quit).toBe(true);
    expect(run([['', { escape: true }]]).quit).toBe(true);
    const declined = run([['r'], ['', { escape: true }]]);
    expect(declined.quit).toBeUndefined();
    expect(declined.state.mode.kind).toBe('browse');
    expect(declined.state.status).toEqual({ tone: 'note', text: 'Nothing replayed' });
  });

  it('moves between the lists with Tab (and Shift+Tab) and within one with the arrows, stopping at the ends', () => {
    expect(run([['', { tab: true }]]).state.section).toBe('endpoints');
    expect(
      run([
        ['', { tab: true }],
        ['', { tab: true }],
      ]).state.section,
    ).toBe('deliveries');
    expect(run([['', { tab: true, shift: true }]]).state.section).toBe('endpoints');
    const down = run([['', { downArrow: true }], ['j'], ['', { downArrow: true }]]);
    expect(down.state.rows.deliveries).toBe(2);
    expect(run([['', { upArrow: true }]]).state.rows.deliveries).toBe(0);
    // Each list keeps its own selection.
    const both = run([['j'], ['', { tab: true }], ['j'], ['j']]);
    expect(both.state.rows).toEqual({ endpoints: 2, deliveries: 1 });
  });

  it('asks before replaying the selected delivery’s event, and runs it only on y', () => {
    const asked = run([['j'], ['r']]);
    expect(asked.state.mode).toMatchObject({
      kind: 'confirm',
      question: 'Replay order.paid e2 to https://example.com/a?',
    });
    const yes = run([['y']], asked.state);
    expect(yes.run).toEqual({ kind: 'redeliver', eventId: 'e2', label: 'order.paid e2' });
    expect(yes.state.mode.kind).toBe('busy');
    // While the daemon answers, keys do nothing.
    expect(run([['r'], ['q']], yes.state)).toEqual({ state: yes.state });
    for (const answer of ['n', 'q', '']) {
      const no = run([[answer]], asked.state);
      expect(no.run).toBeUndefined();
      expect(no.state.mode.kind).toBe('browse');
    }
  });

  it('says where r works instead of replaying from the endpoints list or an empty log', () => {
    expect(run([['', { tab: true }], ['r']]).state.status?.text).toContain('Tab to Deliveries first');
    const empty: Snapshot = { ...snapshot, deliveries: [] };
    expect(run([['r']], initialView, empty).state).toMatchObject({
      mode: { kind: 'browse' },
      status: { text: 'No delivery to replay yet' },
    });
    expect(run([['', { downArrow: true }]], initialView, empty).state.rows.deliveries).toBe(0);
  });

  it('keeps the selection on the same delivery when newer ones arrive on top', () => {
    const selected = run([['j']]).state;
    const newer = [delivery('d4', 'a', 'e4', 200), delivery('d5', 'a', 'e2', 200), ...deliveries];
    const after: Snapshot = { ...snapshot, deliveries: newer };
    expect(followSelection(selected, snapshot, after).rows.deliveries).toBe(3);
    // A delivery that is gone leaves the index where it was.
    expect(followSelection(selected, snapshot, { ...snapshot, deliveries: [] }).rows.deliveries).toBe(1);
  });

  it('splits keys that arrive in one read back into presses', () => {
    expect(splitInput('ry', NO_KEY).map((one) => one.input)).toEqual(['r', 'y']);
    expect(splitInput('r', NO_KEY)).toEqual([{ input: 'r', key: NO_KEY }]);
    expect(splitInput('\t', NO_KEY)).toEqual([{ input: '\t', key: NO_KEY }]);
  });

  it('scrolls a long list only as far as keeps the selection in view', () => {
    expect(visibleWindow(0, 3, 5)).toEqual({ start: 0, end: 3 });
    expect(visibleWindow(0, 20, 5)).toEqual({ start: 0, end: 5 });
    expect(visibleWindow(3, 20, 5)).toEqual({ start: 0, end: 5 });
    expect(visibleWindow(4, 20, 5)).toEqual({ start: 1, end: 6 });
    expect(visibleWindow(19, 20, 5)).toEqual({ start: 15, end: 20 });
  });
});
