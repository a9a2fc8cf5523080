// Key handling every dashboard shares: the Ink key fields they read, splitting fast-typed text into presses, and
// moving between sections and rows. Each screen's model keeps only its own bindings.

/** The few fields of Ink's Key that the dashboards read; Ink's own Key object fits it. */
export interface KeyPress {
  tab: boolean;
  shift: boolean;
  upArrow: boolean;
  downArrow: boolean;
  leftArrow: boolean;
  rightArrow: boolean;
  return: boolean;
  escape: boolean;
  ctrl: boolean;
}

export const NO_KEY: KeyPress = {
  tab: false,
  shift: false,
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  return: false,
  escape: false,
  ctrl: false,
};

/**
 * Ink hands over plain text that arrives in one read as one input ("rm" when keys come faster than it reads, as
 * with tmux send-keys or a paste). Each character is a key here, so it is split back into presses.
 */
export function splitInput(input: string, key: KeyPress): Array<{ input: string; key: KeyPress }> {
  if (input.length <= 1 || key.ctrl || key.escape) return [{ input, key }];
  return [...input].map((char) => ({ input: char, key: { ...NO_KEY, tab: char === '\t', return: char === '\r' } }));
}

export function isQuit(input: string, key: KeyPress): boolean {
  return input === 'q' || key.escape || (key.ctrl && input === 'c');
}

export const cycle = <T>(items: readonly T[], current: T, step: number): T =>
  items[(items.indexOf(current) + step + items.length) % items.length]!;

/**
 * Tab/Shift-Tab and ←/→ move between sections, ↑/↓ and k/j between rows (clamped). Returns the new position, or
 * null when the key is not a movement.
 */
export function navigate<S extends string>(
  sections: readonly S[],
  position: { section: S; rows: Record<S, number> },
  rowCount: number,
  selected: number,
  input: string,
  key: KeyPress,
): { section: S; rows: Record<S, number> } | null {
  if (key.tab || key.leftArrow || key.rightArrow) {
    const back = (key.tab && key.shift) || key.leftArrow;
    return { section: cycle(sections, position.section, back ? -1 : 1), rows: position.rows };
  }
  if (key.upArrow || key.downArrow || input === 'k' || input === 'j') {
    if (rowCount === 0) return position;
    const row = Math.min(Math.max(selected + (key.upArrow || input === 'k' ? -1 : 1), 0), rowCount - 1);
    return { section: position.section, rows: { ...position.rows, [position.section]: row } };
  }
  return null;
}

/** A stored row index clamped to the rows there are now (-1 when none): a refresh can leave it past the end. */
export function clampRow(row: number, count: number): number {
  return count === 0 ? -1 : Math.min(Math.max(row, 0), count - 1);
}

/**
 * Each section's selection after a refresh, following its row by id: rows move (a sort, new rows at the top), and
 * an index alone would leave the cursor on another row. A row that is gone keeps its index (clamped when drawn),
 * which lands on its neighbour.
 */
export function followRows<S extends string>(
  sections: readonly S[],
  rows: Record<S, number>,
  selectedId: (section: S) => string | undefined,
  idsAfter: (section: S) => string[],
): Record<S, number> {
  const next = { ...rows };
  for (const section of sections) {
    const id = selectedId(section);
    const index = id === undefined ? -1 : idsAfter(section).indexOf(id);
    if (index !== -1) next[section] = index;
  }
  return next;
}

/** followRows over a dashboard's view: the row each section had selected before is found again by its id after. */
export function followView<Section extends string, Mode, Status, Snapshot>(
  sections: readonly Section[],
  view: DashboardView<Section, Mode, Status>,
  idsOf: (snapshot: Snapshot, section: Section) => string[],
  selectedRow: (view: DashboardView<Section, Mode, Status>, snapshot: Snapshot, section: Section) => number,
  before: Snapshot,
  after: Snapshot,
): DashboardView<Section, Mode, Status> {
  const rows = followRows(
    sections,
    view.rows,
    (section) => idsOf(before, section)[selectedRow(view, before, section)],
    (section) => idsOf(after, section),
  );
  return { ...view, rows };
}

/** What a dashboard's model answers for one key press: the next view, and a command to run or a wish to quit. */
export interface PressOutcome<View, Command> {
  state: View;
  run?: Command;
  quit?: boolean;
}

/** A dashboard's view: the section in focus, the selected row of each, the mode and the status line. */
export interface DashboardView<Section extends string, Mode, Status> {
  section: Section;
  /** The selected row of each section, kept when moving away so coming back lands where one left. */
  rows: Record<Section, number>;
  mode: Mode;
  status: Status | null;
}

/** The modes every dashboard has: browsing, a [y/N] question about a command, and waiting while the daemon runs it. */
export type SharedMode<Command> =
  { kind: 'browse' } | { kind: 'confirm'; question: string; command: Command } | { kind: 'busy'; label: string };

/** A dashboard's view whose mode is a shared one or one of the screen's own. */
type SharedModeView<Section extends string, Command, OwnMode, Status> = DashboardView<
  Section,
  SharedMode<Command> | OwnMode,
  Status
>;

/** What a dashboard tells pressShared about itself for one key press. */
export interface SharedBindings<Section extends string, Command, OwnMode, Status> {
  sections: readonly Section[];
  /** The rows of the section in focus, and the selected one: what ↑/↓ and k/j move over. */
  rowCount: number;
  selected: number;
  /** The screen's own keys in browse mode, for a key that neither quits nor moves. */
  browse: () => PressOutcome<SharedModeView<Section, Command, OwnMode, Status>, Command>;
  /** What the status line says while a confirmed command runs. */
  busyLabel: (confirm: { question: string; command: Command }) => string;
  /** The status line when the question gets anything but yes. */
  declined: Status;
}

/**
 * A key press in one of the shared modes. Browsing, q/Esc/Ctrl-C quit and the movement keys move before the
 * screen's own keys are asked. While busy, keys do nothing: one change at a time, since a key pressed while the
 * daemon answers would act on rows about to be refreshed. A question runs its command on y; anything but an explicit
 * yes keeps things as they are, as a [y/N] prompt promises.
 */
export function pressShared<Section extends string, Command, OwnMode, Status>(
  state: SharedModeView<Section, Command, OwnMode, Status>,
  mode: SharedMode<Command>,
  input: string,
  key: KeyPress,
  bindings: SharedBindings<Section, Command, OwnMode, Status>,
): PressOutcome<SharedModeView<Section, Command, OwnMode, Status>, Command> {
  switch (mode.kind) {
    case 'browse': {
      if (isQuit(input, key)) return { state, quit: true };
      const moved = navigate(bindings.sections, state, bindings.rowCount, bindings.selected, input, key);
      if (moved) return { state: { ...state, ...moved } };
      return bindings.browse();
    }
    case 'busy':
      return { state };
    case 'confirm':
      if (input === 'y' || input === 'Y') {
        return { state: { ...state, mode: { kind: 'busy', label: bindings.busyLabel(mode) } }, run: mode.command };
      }
      return { state: { ...state, mode: { kind: 'browse' }, status: bindings.declined } };
  }
}
