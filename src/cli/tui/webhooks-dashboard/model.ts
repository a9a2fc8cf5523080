import { clampRow, followView, pressShared } from '../keys.js';
import type { DashboardView, KeyPress, PressOutcome, SharedMode } from '../keys.js';
import type { Snapshot } from './data.js';

export { NO_KEY, splitInput, type KeyPress } from '../keys.js';

// What the keys do, as a pure function of (view state, data, key) -> (next state, what to run), as in the org
// dashboard: free of React and Ink, so every binding is testable without a terminal.

export const SECTIONS = ['endpoints', 'deliveries'] as const;
export type SectionId = (typeof SECTIONS)[number];

export interface Command {
  kind: 'redeliver';
  eventId: string;
  /** How the status line names the event: its type and id. */
  label: string;
}

export type Mode = SharedMode<Command>;

export interface Status {
  /** done: a replay was queued; note: nothing changed (a hint, a declined prompt); error: the daemon said no. */
  tone: 'done' | 'note' | 'error';
  text: string;
  /** Set on a failed refresh, so the next refresh that works can clear it (a replay's outcome stays). */
  refresh?: boolean;
}

export type ViewState = DashboardView<SectionId, Mode, Status>;

export type Outcome = PressOutcome<ViewState, Command>;

// Deliveries first: they are what changes while one watches, and what `r` acts on.
export const initialView: ViewState = {
  section: 'deliveries',
  rows: { endpoints: 0, deliveries: 0 },
  mode: { kind: 'browse' },
  status: null,
};

export function rowCount(snapshot: Snapshot, section: SectionId): number {
  return section === 'endpoints' ? snapshot.endpoints.length : snapshot.deliveries.length;
}

/** The selected row, clamped: a refresh can leave the stored index past the end (an endpoint deleted elsewhere). */
export function selectedRow(state: ViewState, snapshot: Snapshot, section: SectionId = state.section): number {
  return clampRow(state.rows[section], rowCount(snapshot, section));
}

const idsOf = (snapshot: Snapshot, section: SectionId): string[] =>
  section === 'endpoints'
    ? snapshot.endpoints.map((health) => health.endpoint.id)
    : snapshot.deliveries.map((delivery) => delivery.id);

/**
 * Keeps each selection on the same row across a refresh: new attempts arrive at the top every few seconds, and an
 * index alone would slide the cursor onto another delivery just before `r` is pressed. A row that is gone keeps
 * its index (clamped when drawn).
 */
export function followSelection(state: ViewState, before: Snapshot, after: Snapshot): ViewState {
  return followView(SECTIONS, state, idsOf, selectedRow, before, after);
}

/**
 * The slice of `count` rows to draw in `size` lines so that `selected` is on screen: the list scrolls only once the
 * selection would leave it, and keeps it a line from the bottom edge as it moves down.
 */
export function visibleWindow(selected: number, count: number, size: number): { start: number; end: number } {
  if (count <= size) return { start: 0, end: count };
  const start = Math.min(Math.max(selected - size + 2, 0), count - size);
  return { start, end: start + size };
}

/** What the status line says once a replay has been queued. */
export function doneMessage(command: Command): string {
  return `Replay of ${command.label} queued (same webhook-id)`;
}

/** Browsing, the keys of this screen's own: r asks to replay the selected delivery. */
function browse(state: ViewState, snapshot: Snapshot, input: string): Outcome {
  const note = (text: string): Outcome => ({ state: { ...state, status: { tone: 'note', text } } });
  if (input === 'r') {
    if (state.section !== 'deliveries') return note('r replays the selected delivery: Tab to Deliveries first');
    const delivery = snapshot.deliveries[selectedRow(state, snapshot)];
    if (!delivery) return note('No delivery to replay yet');
    const event = delivery.webhook_event;
    const endpoint = snapshot.endpoints.find((health) => health.endpoint.id === delivery.webhook_endpoint_id)?.endpoint;
    const command: Command = { kind: 'redeliver', eventId: event.id, label: `${event.type} ${event.id}` };
    const question = `Replay ${event.type} ${event.id}${endpoint ? ` to ${endpoint.url}` : ''}?`;
    return { state: { ...state, status: null, mode: { kind: 'confirm', question, command } } };
  }
  return { state };
}

export function press(state: ViewState, snapshot: Snapshot, input: string, key: KeyPress): Outcome {
  // One replay at a time (busy ignores keys); n, Enter, Esc or q at the question replay nothing.
  return pressShared(state, state.mode, input, key, {
    sections: SECTIONS,
    rowCount: rowCount(snapshot, state.section),
    selected: selectedRow(state, snapshot),
    browse: () => browse(state, snapshot, input),
    busyLabel: ({ command }) => `Replaying ${command.label}`,
    declined: { tone: 'note', text: 'Nothing replayed' },
  });
}
