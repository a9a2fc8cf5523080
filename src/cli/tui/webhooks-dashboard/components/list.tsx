import { Box, Text } from 'ink';
import { visibleWindow } from '../model.js';

export interface Row {
  key: string;
  /** The row's cells, already padded into columns by the caller. */
  text: string;
  /** Drawn red (a failed attempt, a disabled endpoint), so trouble stands out while scanning. */
  bad?: boolean;
}

interface Props {
  title: string;
  focused: boolean;
  rows: Row[];
  /** The selected row; -1 when there are no rows. */
  selected: number;
  /** At most this many rows are drawn; the list scrolls to keep the selection in view. */
  size: number;
  empty: string;
}

/** A titled list with one selected row, drawn only in the focused list, where the keys act. */
export function List({ title, focused, rows, selected, size, empty }: Props) {
  const { start, end } = visibleWindow(Math.max(selected, 0), rows.length, size);
  const more = rows.length > end - start ? `, ${start + 1}–${end} shown` : '';
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text bold color={focused ? 'cyan' : undefined}>
        {focused ? '▸ ' : '  '}
        {`${title} (${rows.length}${more})`}
      </Text>
      {rows.length === 0 ? (
        <Text dimColor>{`    ${empty}`}</Text>
      ) : (
        rows.slice(start, end).map((row, offset) => {
          const active = focused && start + offset === selected;
          // One line per row however narrow the terminal: a wrapped row would push the selection off screen.
          return (
            <Text key={row.key} inverse={active} color={row.bad ? 'red' : undefined} wrap="truncate-end">
              {active ? '  › ' : '    '}
              {row.text}
            </Text>
          );
        })
      )}
    </Box>
  );
}
