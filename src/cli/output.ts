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

/** Whether stdout is read by a person; TILL_FORCE_TTY=1 says so when it is not (for tests and `| less -S`). */
export function stdoutIsTerminal(env: NodeJS.ProcessEnv = process.env): boolean {
  return process.stdout.isTTY === true || env.TILL_FORCE_TTY === '1';
}

/**
 * The one table every list prints: for people on a terminal, a header row and aligned columns; piped, tab-separated
 * rows without a header (as gh does), which `cut` and `awk` read without guessing at column widths.
 */
export function printTable(headers: string[], rows: string[][]): void {
  if (!stdoutIsTerminal()) {
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
