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

/**
 * `2026-01-31T09:30:00+01:00`: the instant in the export's time zone, with its offset, so no reader guesses.
 *
 * Asking Intl for every timestamp of a million-row export costs more than the rest of the row, so Intl is asked
 * only for the zone's offset at the start of each UTC hour; where an hour starts and the next one starts with the
 * same offset (every hour but those a transition falls in), the local time is the instant shifted by that offset.
 * An hour with a transition, and years outside 1000–9999 (where toISOString's form differs), are written from
 * Intl's parts directly.
 */
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
  const exact = (date: Date): string => {
    const parts = Object.fromEntries(format.formatToParts(date).map((part) => [part.type, part.value]));
    return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offsetText(String(parts.timeZoneName))}`;
  };
  // The offset at the start of each UTC hour asked about. Exports run in created_at order, so the hours come in
  // runs; the map is emptied now and then so that columns in no order (a subscription's period ends) stay bounded.
  const starts = new Map<number, string>();
  const offsetAtStart = (hour: number): string => {
    let text = starts.get(hour);
    if (text === undefined) {
      text = offsetText(format.formatToParts(hour * HOUR).find((part) => part.type === 'timeZoneName')!.value);
      if (starts.size >= 10_000) starts.clear();
      starts.set(hour, text);
    }
    return text;
  };
  return (date) => {
    if (!date) return '';
    const ms = date.getTime();
    const hour = Math.floor(ms / HOUR);
    const offset = offsetAtStart(hour);
    if (offsetAtStart(hour + 1) !== offset) return exact(date);
    const local = new Date(ms + offsetMs(offset)).toISOString();
    // `+010000-…` or `-000001-…`: a year toISOString writes in its extended form.
    if (local.length !== 24) return exact(date);
    return `${local.slice(0, 19)}${offset}`;
  };
}

const HOUR = 3_600_000;

/** Intl's `GMT+05:30` (or `GMT` for zero) as the `+05:30` an ISO timestamp ends with. */
function offsetText(timeZoneName: string): string {
  return timeZoneName === 'GMT' ? '+00:00' : timeZoneName.replace('GMT', '');
}

/** `+05:30` → 19,800,000; `-00:19:32` (a local mean time) → its milliseconds, seconds included. */
function offsetMs(text: string): number {
  const [hours, minutes, seconds = '0'] = text.slice(1).split(':');
  const ms = ((Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1000;
  return text.startsWith('-') ? -ms : ms;
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
