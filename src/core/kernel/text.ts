/**
 * Text both databases store alike. A JavaScript string may hold what UTF-8 cannot: a lone surrogate (`"\ud800"` in
 * JSON), which the drivers' UTF-8 encoding turns into U+FFFD in a text column but which survives JSON.stringify as
 * an escape that PostgreSQL's json refuses; and NUL, which SQLite keeps and PostgreSQL's text refuses outright.
 */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The string with each lone surrogate replaced by U+FFFD, as writing it as UTF-8 would. */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

/**
 * A parsed JSON value with every string and every key well-formed. Request bodies pass through it once, so
 * metadata and plain-text fields follow one rule on both databases. Recursive: callers have bounded the nesting.
 */
export function wellFormedJson(value: unknown): unknown {
  if (typeof value === 'string') return wellFormed(value);
  if (Array.isArray(value)) return value.map(wellFormedJson);
  if (value && typeof value === 'object') {
    // fromEntries defines own properties, so a "__proto__" key stays a key rather than setting the prototype.
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [wellFormed(key), wellFormedJson(item)]));
  }
  return value;
}

interface Visit {
  value: unknown;
  key: string | number | null;
  parent: Visit | null;
}

function pathOf(visit: Visit): Array<string | number> {
  const path: Array<string | number> = [];
  for (let at: Visit | null = visit; at && at.key !== null; at = at.parent) path.unshift(at.key);
  return path;
}

/**
 * Where a NUL character hides in request input (a string or a key), if anywhere: the path to it, `[]` for the value
 * itself. PostgreSQL text cannot hold one, so such input is refused up front rather than failing in the database.
 */
export function nulPath(value: unknown): Array<string | number> | null {
  return holdsNul(value) ? firstNulPath(value) : null;
}

/**
 * Whether a NUL is anywhere in the value. Every /v1 body passes through here (an ingestion batch is a thousand
 * events), and nearly all hold none: so this walk allocates nothing per value (no entries, no path), and the path is
 * looked for only once a NUL is known to be there.
 */
function holdsNul(value: unknown): boolean {
  // An explicit stack rather than recursion: no input can overflow the call stack.
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'string') {
      if (item.includes('\u0000')) return true;
    } else if (Array.isArray(item)) {
      for (let index = 0; index < item.length; index++) pending.push(item[index]);
    } else if (item && typeof item === 'object') {
      for (const key in item) {
        // Own keys only, as Object.entries gives them.
        if (!Object.hasOwn(item, key)) continue;
        if (key.includes('\u0000')) return true;
        pending.push((item as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}

/** The path to the first NUL in document order (depth first), or null. */
function firstNulPath(value: unknown): Array<string | number> | null {
  if (typeof value === 'string') return value.includes('\u0000') ? [] : null;
  if (!value || typeof value !== 'object') return null;
  const pending: Visit[] = [{ value, key: null, parent: null }];
  for (let visit = pending.pop(); visit; visit = pending.pop()) {
    if (typeof visit.key === 'string' && visit.key.includes('\u0000')) return pathOf(visit);
    const item = visit.value;
    if (typeof item === 'string') {
      if (item.includes('\u0000')) return pathOf(visit);
    } else if (Array.isArray(item)) {
      for (let index = item.length - 1; index >= 0; index--)
        pending.push({ value: item[index], key: index, parent: visit });
    } else if (item && typeof item === 'object') {
      const entries = Object.entries(item);
      for (let index = entries.length - 1; index >= 0; index--)
        pending.push({ value: entries[index]![1], key: entries[index]![0], parent: visit });
    }
  }
  return null;
}

/**
 * Text from outside (a webhook receiver's answer) made storable on both databases: NUL becomes U+FFFD, the text is
 * cut to at most `maxChars` UTF-16 units without splitting a surrogate pair, and no lone surrogate is left.
 */
export function storableText(text: string, maxChars: number): string {
  let cut = text.length > maxChars ? text.slice(0, maxChars) : text;
  const last = cut.charCodeAt(cut.length - 1);
  if (cut.length < text.length && last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return wellFormed(cut.replaceAll('\u0000', '\uFFFD'));
}

/**
 * The longest values /api/auth input may write, one rule on both databases: the varchar widths of the migrations
 * (which PostgreSQL enforces and SQLite does not), and caps on text columns so neither stores what the other would
 * not. Lookups by id or token need no cap: an over-long one finds nothing on either database.
 */
export const TEXT_LIMITS = {
  /** users.email, invitations.email: varchar(254), the spec's longest address. */
  email: 254,
  /** organizations.slug: varchar(255). */
  slug: 255,
  /** Names of users, organizations and teams (text). */
  name: 255,
  /** A role, or each of several (text). */
  role: 255,
  /** Image and logo URLs and callback URLs (text; also what a Location header carries). */
  url: 2048,
  /** Organization and API key metadata and API key permissions, as the JSON text stored. */
  json: 16 * 1024,
} as const;

/** JSON.stringify's length of a parsed value: what a JSON text column will hold. */
export function jsonLength(value: unknown): number {
  return (JSON.stringify(value) ?? '').length;
}
