import type { Knex } from 'knex';

/**
 * LIKE searches, written one way for both databases. The ESCAPE clause is always spelled out: PostgreSQL takes the
 * backslash as LIKE's escape by default, SQLite has no default escape at all, so a pattern escaped with backslashes
 * but sent without ESCAPE found `john_doe` on PostgreSQL and nothing on SQLite.
 */

/** `text` with LIKE's own characters (`%`, `_` and the escape itself) taken literally. */
function literal(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/**
 * Adds, as OR branches of `group`, "this column contains `text`, ignoring case" for each of `columns` (SQL
 * expressions written in the code, never input). Case is folded by lower() on both sides, because SQLite's LIKE
 * ignores ASCII case and PostgreSQL's does not.
 */
export function orWhereContains(group: Knex.QueryBuilder, columns: readonly string[], text: string): void {
  const pattern = `%${literal(text.toLowerCase())}%`;
  for (const column of columns) group.orWhereRaw(`lower(${column}) like ? escape '\\'`, [pattern]);
}

/** Narrows `query` to rows where any of `columns` contains `text`, ignoring case (see orWhereContains). */
export function whereContains(query: Knex.QueryBuilder, columns: readonly string[], text: string): void {
  query.where((group) => orWhereContains(group, columns, text));
}

/** Adds, as an OR branch of `group`, "`column` starts with `prefix`" (SQLite ignores ASCII case here; PostgreSQL does not). */
export function orWhereStartsWith(group: Knex.QueryBuilder, column: string, prefix: string): void {
  group.orWhereRaw(`${column} like ? escape '\\'`, [`${literal(prefix)}%`]);
}
