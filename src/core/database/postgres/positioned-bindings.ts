/**
 * Knex numbers the `?` of every statement's text into PostgreSQL's `$1, $2, …` as it sends it, by a regular
 * expression that calls back once per `?`: about 1.4 ms for a multi-row INSERT of 7,400 values (bench/renewals,
 * 2026-11-28), and again for every chunk of a batch whose text repeats. The answer depends on the text alone, so it
 * is kept, up to a budget of characters; past it the cache starts over.
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
    // A text without a `?` to number comes back as it was, at no cost to find again.
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
