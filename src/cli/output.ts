// Data goes to stdout, everything meant for a person reading along (progress, confirmations, errors) to stderr,
// so `till ... --json | jq` and `x=$(till ...)` only ever see data.

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printLine(line: string): void {
  process.stdout.write(`${line}\n`);
}

export function info(message: string): void {
  process.stderr.write(`${message}\n`);
}

/**
 * A table for people on a terminal; piped, it becomes tab-separated rows without a header (as gh does), which
 * `cut` and `awk` read without guessing at column widths.
 */
export function printTable(headers: string[], rows: string[][]): void {
  if (!process.stdout.isTTY) {
    for (const row of rows) printLine(row.join('\t'));
    return;
  }
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const format = (row: string[]) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  printLine(format(headers));
  for (const row of rows) printLine(format(row));
}

/** One record as `label: value` lines, the values lined up. */
export function printFields(lines: Array<[string, string]>): void {
  const width = Math.max(...lines.map(([label]) => label.length)) + 2;
  for (const [label, value] of lines) process.stdout.write(`${`${label}:`.padEnd(width)}${value}\n`);
}
