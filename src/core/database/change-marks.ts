import { databaseIdentity, type Db } from './connection.js';

/**
 * A number per (table, scope) that only grows, bumped by the repository before it sends any write to the table's rows
 * of that scope (an organization). A value taken before a read and found the same later means no write of those rows
 * was even begun in between: on SQLite, whose one connection this daemon holds, a transaction that finds it unchanged
 * may rely on what was read before it began (ingestion keeps the customers its events name on that basis). Counted in
 * memory: it says nothing about another process, so on PostgreSQL nobody relies on it.
 */
const marks = new WeakMap<object, Map<string, number>>();

function marksOf(db: Db): Map<string, number> {
  const identity = databaseIdentity(db);
  let map = marks.get(identity);
  if (!map) marks.set(identity, (map = new Map()));
  return map;
}

export function markChanged(db: Db, table: string, scope: string): void {
  const map = marksOf(db);
  const key = `${table}\u0000${scope}`;
  map.set(key, (map.get(key) ?? 0) + 1);
}

export function changeMark(db: Db, table: string, scope: string): number {
  return marksOf(db).get(`${table}\u0000${scope}`) ?? 0;
}

const keptValues = new WeakMap<object, Map<string, { mark: number; value: unknown }>>();

/**
 * `load()`'s answer, kept in memory until the next write to the table's rows of that scope begins (see markChanged);
 * with the mark it holds under. An answer read while such a write began is returned but not kept.
 */
export async function keptWhileUnchanged<T>(
  db: Db,
  table: string,
  scope: string,
  load: () => Promise<T>,
): Promise<{ value: T; mark: number }> {
  const identity = databaseIdentity(db);
  let map = keptValues.get(identity);
  if (!map) keptValues.set(identity, (map = new Map()));
  const key = `${table}\u0000${scope}`;
  const mark = changeMark(db, table, scope);
  const kept = map.get(key);
  if (kept && kept.mark === mark) return { value: kept.value as T, mark };
  const value = await load();
  if (changeMark(db, table, scope) === mark) map.set(key, { mark, value });
  return { value, mark };
}
