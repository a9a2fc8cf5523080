import { dialect, perDatabase, type Db } from './connection.js';

/**
 * A number per (table, scope) that only grows, bumped by the repository before it sends any write to the table's rows
 * of that scope (an organization). A value taken before a read and found the same later means no write of those rows
 * was even begun in between: on SQLite, whose one connection this daemon holds, a transaction that finds it unchanged
 * may rely on what was read before it began (ingestion keeps the customers its events name on that basis). Counted in
 * memory: it says nothing about another process, so on PostgreSQL nobody relies on it; there a table that several
 * daemons share needs the stored mark below.
 */
interface Marked {
  mark: number;
  /** keptWhileUnchanged's value, and the mark it was read under. */
  kept?: { mark: number; value: unknown };
}

const marksOf = perDatabase(() => new Map<string, Marked>());

function marked(db: Db, table: string, scope: string): Marked {
  const marks = marksOf(db);
  const key = `${table}\u0000${scope}`;
  let entry = marks.get(key);
  if (!entry) marks.set(key, (entry = { mark: 0 }));
  return entry;
}

export function markChanged(db: Db, table: string, scope: string): void {
  marked(db, table, scope).mark += 1;
}

export function changeMark(db: Db, table: string, scope: string): number {
  return marksOf(db).get(`${table}\u0000${scope}`)?.mark ?? 0;
}

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
  const entry = marked(db, table, scope);
  const mark = entry.mark;
  if (entry.kept && entry.kept.mark === mark) return { value: entry.kept.value as T, mark };
  const value = await load();
  if (entry.mark === mark) entry.kept = { mark, value };
  return { value, mark };
}

/**
 * PostgreSQL, where several daemons share the database: the mark stored (`change_marks`), moved by a write to the
 * table's rows of an organization in the writing transaction, so the two commit together (its row stays locked until
 * then: that organization's writes to the table commit one after another). A reader that finds the mark it read
 * before unchanged knows no such write committed in between. What it reads after the mark may be newer than the mark;
 * kept under that mark, it is dropped once the mark moves on. Nothing on SQLite (markChanged is its mark).
 */
export async function markStoredChange(db: Db, table: string, organizationId: string): Promise<void> {
  if (dialect(db) !== 'postgres') return;
  await db.raw(
    `INSERT INTO change_marks (organization_id, table_name, mark) VALUES (?, ?, 1)
ON CONFLICT (organization_id, table_name) DO UPDATE SET mark = change_marks.mark + 1`,
    [organizationId, table],
  );
}

/** The stored mark of an organization's rows of a table (0 before any write); PostgreSQL only. */
export async function storedChangeMark(db: Db, table: string, organizationId: string): Promise<number> {
  const row = (await db('change_marks').where({ organization_id: organizationId, table_name: table }).first('mark')) as
    { mark: string | number } | undefined;
  return row ? Number(row.mark) : 0;
}
