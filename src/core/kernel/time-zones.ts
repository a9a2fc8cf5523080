/**
 * IANA time zones through Intl (the ICU data Node ships), with no other import: meters' and metrics' schemas validate
 * `timezone` with it, and the CLI loads those schemas.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

export function formatterOf(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    // Zones are a few hundred names at most; the cap only guards against a flood of distinct spellings.
    if (formatters.size > 1000) formatters.clear();
    formatters.set(zone, formatter);
  }
  return formatter;
}

/**
 * The zone's canonical name (`Etc/UTC`, `utc` and `GMT` are all `UTC`; `US/Eastern` is `America/New_York`), or null
 * when Intl does not know it: an unknown zone is a 422 at `timezone`. Polar's enum also lists tzdata's `Factory`,
 * which ICU lacks; tzdata defines it as UTC+0, so it is UTC here.
 */
export function canonicalZone(zone: string): string | null {
  if (zone === 'Factory') return 'UTC';
  try {
    return formatterOf(zone).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}
