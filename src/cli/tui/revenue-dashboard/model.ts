import { INTERVALS, type Interval, type MetricsLimits } from '../../metrics.js';
import { clampRow, followView, pressShared } from '../keys.js';
import type { DashboardView, KeyPress, PressOutcome, SharedMode } from '../keys.js';
import { RANGES, rangeDays, type CustomerDetail, type RangeId, type Snapshot, type Window } from './data.js';

export { NO_KEY, splitInput, type KeyPress } from '../keys.js';

// What the keys do, as a pure function of (view state, data, key) -> (next state, what to run), as in the other
// dashboards: free of React and Ink, so every binding is testable without a terminal.

export const SECTIONS = ['orders', 'past_due'] as const;
export type SectionId = (typeof SECTIONS)[number];

export type Command =
  | { kind: 'retry'; subscriptionId: string; label: string }
  | { kind: 'cancel'; subscriptionId: string; label: string }
  | { kind: 'open'; customerId: string; label: string };

export type Mode = SharedMode<Command>;

export interface Status {
  tone: 'done' | 'note' | 'error';
  text: string;
  /** Set on a failed refresh, so the next refresh that works can clear it (an action's outcome stays). */
  refresh?: boolean;
}

export interface ViewState extends DashboardView<SectionId, Mode, Status> {
  /** The range and interval the charts show; the keys change it and the next load asks for it. */
  window: Window;
  /** The customer `o` opened, shown until the selection moves. */
  customer: CustomerDetail | null;
}

export type Outcome = PressOutcome<ViewState, Command>;

/** The interval each range opens with: enough points to see a trend, few enough to fit a terminal. */
const NATURAL_INTERVAL: Record<RangeId, Interval> = { '7d': 'day', '30d': 'day', '90d': 'week', '1y': 'month' };

export const initialView: ViewState = {
  section: 'past_due',
  rows: { orders: 0, past_due: 0 },
  mode: { kind: 'browse' },
  status: null,
  window: { range: '30d', interval: 'day' },
  customer: null,
};

/** The intervals the daemon accepts over `days` days (its /v1/metrics/limits), in order; day when none says so. */
export function allowedIntervals(limits: MetricsLimits, days: number): Interval[] {
  const allowed = INTERVALS.filter((interval) => {
    const limit = limits.intervals[interval];
    return limit !== undefined && limit.min_days <= days && days <= limit.max_days;
  });
  return allowed.length > 0 ? allowed : ['day'];
}

function withRange(limits: MetricsLimits, range: RangeId): Window {
  const allowed = allowedIntervals(limits, rangeDays(range));
  const natural = NATURAL_INTERVAL[range];
  return { range, interval: allowed.includes(natural) ? natural : allowed[0]! };
}

function withNextInterval(limits: MetricsLimits, window: Window, step: number): Window {
  const allowed = allowedIntervals(limits, rangeDays(window.range));
  const at = allowed.indexOf(window.interval);
  const next = allowed[(at + step + allowed.length) % allowed.length]!;
  return { ...window, interval: at === -1 ? allowed[0]! : next };
}

export function rowCount(snapshot: Snapshot, section: SectionId): number {
  return section === 'orders' ? snapshot.orders.length : snapshot.pastDue.length;
}

export function selectedRow(
  state: DashboardView<SectionId, Mode, Status>,
  snapshot: Snapshot,
  section: SectionId = state.section,
): number {
  return clampRow(state.rows[section], rowCount(snapshot, section));
}

const idsOf = (snapshot: Snapshot, section: SectionId): string[] =>
  section === 'orders' ? snapshot.orders.map((order) => order.id) : snapshot.pastDue.map((sub) => sub.id);

/** Keeps each selection on the same row across a refresh: new orders arrive at the top while one watches. */
export function followSelection(state: ViewState, before: Snapshot, after: Snapshot): ViewState {
  return { ...state, ...followView(SECTIONS, state, idsOf, selectedRow, before, after) };
}

/** What the status line says once a confirmed action went through; the data layer words the daemon's answer. */
export function busyLabel(command: Command): string {
  if (command.kind === 'retry') return `Retrying the charge of ${command.label}`;
  if (command.kind === 'cancel') return `Canceling ${command.label}`;
  return `Opening ${command.label}`;
}

type CoreView = DashboardView<SectionId, Mode, Status>;

/** Browsing, this screen's own row keys: r retries the charge, c cancels, o opens the customer. */
function browse(state: CoreView, snapshot: Snapshot, input: string): PressOutcome<CoreView, Command> {
  const note = (text: string): PressOutcome<CoreView, Command> => ({
    state: { ...state, status: { tone: 'note', text } },
  });
  if (input !== 'r' && input !== 'c' && input !== 'o') return { state };
  if (state.section === 'orders') {
    const order = snapshot.orders[selectedRow(state, snapshot)];
    if (input !== 'o') return note(`${input} acts on a past-due subscription: Tab to Past due first`);
    if (!order) return note('No order to open the customer of');
    const label = `customer ${order.customer.email ?? order.customer_id}`;
    const command: Command = { kind: 'open', customerId: order.customer_id, label };
    return { state: { ...state, status: null, mode: { kind: 'busy', label: busyLabel(command) } }, run: command };
  }
  const subscription = snapshot.pastDue[selectedRow(state, snapshot)];
  if (!subscription) return note('No past-due subscription selected');
  const who = subscription.customer.email ?? subscription.customer_id;
  if (input === 'o') {
    const command: Command = { kind: 'open', customerId: subscription.customer_id, label: `customer ${who}` };
    return { state: { ...state, status: null, mode: { kind: 'busy', label: busyLabel(command) } }, run: command };
  }
  const label = `${subscription.product.name} of ${who}`;
  const command: Command =
    input === 'r'
      ? { kind: 'retry', subscriptionId: subscription.id, label }
      : { kind: 'cancel', subscriptionId: subscription.id, label };
  const question =
    input === 'r'
      ? `Charge ${who} again now for ${subscription.product.name}?`
      : `Cancel ${subscription.product.name} of ${who} at the end of its period?`;
  return { state: { ...state, status: null, mode: { kind: 'confirm', question, command } } };
}

/** Range (1–4) and interval (i forward, I back) while browsing; null for any other key. */
function windowKey(state: ViewState, snapshot: Snapshot, input: string): ViewState | null {
  const range = RANGES[Number(input) - 1];
  if (/^[1-4]$/.test(input) && range) return { ...state, window: withRange(snapshot.limits, range.id) };
  if (input === 'i' || input === 'I') {
    return { ...state, window: withNextInterval(snapshot.limits, state.window, input === 'i' ? 1 : -1) };
  }
  return null;
}

export function press(state: ViewState, snapshot: Snapshot, input: string, key: KeyPress): Outcome {
  if (state.mode.kind === 'browse') {
    const moved = windowKey(state, snapshot, input);
    if (moved) return { state: moved };
  }
  const { window, customer, ...core } = state;
  const outcome = pressShared(core, state.mode, input, key, {
    sections: SECTIONS,
    rowCount: rowCount(snapshot, state.section),
    selected: selectedRow(state, snapshot),
    browse: () => browse(core, snapshot, input),
    busyLabel: ({ command }) => busyLabel(command),
    declined: { tone: 'note', text: 'Nothing changed' },
  });
  const next = outcome.state;
  // The open customer belongs to the row it was opened from; moving elsewhere puts it away.
  const stayed = next.section === state.section && next.rows[next.section] === state.rows[state.section];
  return { ...outcome, state: { ...next, window, customer: stayed ? customer : null } };
}
