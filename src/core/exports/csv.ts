/**
 * CSV as spreadsheets read it (RFC 4180: comma-separated, CRLF, quoted when a cell holds a comma, quote or line
 * break). Text a buyer typed is also defused: a cell starting with `=`, `+`, `-`, `@`, tab or CR would run as a
 * formula in Excel or Sheets, so it gets a leading apostrophe (OWASP's CSV-injection advice). Numbers are written as
 * they are, so negative amounts stay numbers.
 */

export type CsvValue = string | number | boolean | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: CsvValue, typed: 'text' | 'plain' = 'plain'): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typed === 'text' && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvLine(cells: string[]): string {
  return `${cells.join(',')}\r\n`;
}

/** `2026-01-31T09:30:00+01:00`: the instant in the export's time zone, with its offset, so no reader guesses. */
export function zonedTimestamps(timeZone: string): (date: Date | null) => string {
  const format = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'longOffset',
  });
  return (date) => {
    if (!date) return '';
    const parts = Object.fromEntries(format.formatToParts(date).map((part) => [part.type, part.value]));
    const offset = parts.timeZoneName === 'GMT' ? '+00:00' : String(parts.timeZoneName).replace('GMT', '');
    return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`;
  };
}

/** Whether the runtime knows the IANA time zone (an unknown one is the caller's 422, not our 500). */
export function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}
