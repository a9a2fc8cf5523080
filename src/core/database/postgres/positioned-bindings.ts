/**
 * Knex writes PostgreSQL's `$1, $2, …` into every statement's text as it sends it, by a regular expression with a
 * callback per placeholder: about 1.4 ms on this project's slowest bench machine for a multi-row INSERT of 7,400
 * values, again for every chunk of a batch whose text repeats. The answer depends on the text alone, so it is kept.
 * Texts are held up to a budget of characters, then the cache starts over.
 */

type Positioner = (this: unknown, sql: string) => string;

interface PositioningClient {
  positionBindings: Positioner;
}

const PATCHED = Symbol('till.positionBindingsCached');

export function createPositionCache(position: (sql: string) => string, budgetChars = 4 * 1024 * 1024) {
  const cache = new Map<string, string>();
  let used = 0;
  return (sql: string): string => {
    const known = cache.get(sql);
    if (known !== undefined) return known;
    const positioned = position(sql);
    // A text with no placeholder comes back as it was: nothing worth keeping.
    if (positioned === sql) return positioned;
    used += sql.length + positioned.length;
    if (used > budgetChars) {
      cache.clear();
      used = sql.length + positioned.length;
    }
    cache.set(sql, positioned);
    return positioned;
  };
}

/**
 * Caches the positioning on the client's class, once per process: knex makes each transaction's client from the
 * class's prototype, not from the database's client, so the prototype is where every statement finds it.
 */
export function cachePositionedBindings(client: object): void {
  const prototype = Object.getPrototypeOf(client) as PositioningClient & { [PATCHED]?: true };
  if (prototype[PATCHED]) return;
  const original = prototype.positionBindings;
  // The original reads nothing of the client it is called on.
  prototype.positionBindings = createPositionCache((sql) => original.call(prototype, sql));
  prototype[PATCHED] = true;
}
