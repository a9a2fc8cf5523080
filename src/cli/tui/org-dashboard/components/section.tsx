import { Box, Text } from 'ink';

export interface Row {
  key: string;
  /** The row's cells, already padded into columns by the caller. */
  text: string;
  /** Shown after the text, dimmed (e.g. "you"). */
  note?: string;
}

interface Props {
  title: string;
  focused: boolean;
  rows: Row[];
  /** The selected row; -1 when there are no rows. */
  selected: number;
  /** What to show instead of rows: "none yet", or why the list is unavailable. */
  empty: string;
}

/** A titled list with one selected row; the selection is drawn only in the focused section, where keys act. */
export function Section({ title, focused, rows, selected, empty }: Props) {
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text bold color={focused ? 'cyan' : undefined}>
        {focused ? '▸ ' : '  '}
        {title} ({rows.length})
      </Text>
      {rows.length === 0 ? (
        <Text dimColor>{`    ${empty}`}</Text>
      ) : (
        rows.map((row, index) => {
          const active = focused && index === selected;
          return (
            <Text key={row.key} inverse={active}>
              {active ? '  › ' : '    '}
              {row.text}
              {row.note ? <Text dimColor>{`  ${row.note}`}</Text> : null}
            </Text>
          );
        })
      )}
    </Box>
  );
}

/** Pads each column to its widest cell, so rows line up without a table widget. */
export function columns(cells: string[][]): string[] {
  const widths: number[] = [];
  for (const row of cells) row.forEach((cell, column) => (widths[column] = Math.max(widths[column] ?? 0, cell.length)));
  return cells.map((row) =>
    row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '),
  );
}
