import type { Knex } from 'knex';
import { dialect, postgresArray, type Db } from '../database/index.js';
import { metadataPath } from './filter.js';
import type { Filter, FilterClause } from './schemas.js';

/**
 * A meter filter as SQL over the `events` table, for listing events by a filter or a meter: the same semantics as
 * the compiled predicate (filter.ts), with the metadata read from its JSON text. Text order (gt/lt on strings)
 * follows the database's collation.
 */
export function whereFilter(db: Db, query: Knex.QueryBuilder, filter: Filter): void {
  const sql = filterSql(dialect(db) === 'postgres', filter);
  query.whereRaw(sql.text, sql.bindings);
}

interface Sql {
  text: string;
  bindings: Knex.RawBinding[];
}

function filterSql(postgres: boolean, filter: Filter): Sql {
  const parts = filter.clauses.map((clause) =>
    'clauses' in clause ? filterSql(postgres, clause) : clauseSql(postgres, clause),
  );
  if (parts.length === 0) return { text: '1 = 1', bindings: [] };
  return {
    text: `(${parts.map((part) => `(${part.text})`).join(filter.conjunction === 'and' ? ' AND ' : ' OR ')})`,
    bindings: parts.flatMap((part) => part.bindings),
  };
}

const COMPARISON: Record<string, string> = { eq: '=', ne: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' };

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (char) => `\\${char}`);
}

function clauseSql(postgres: boolean, clause: FilterClause): Sql {
  const { property, operator, value } = clause;
  const column = property === 'name' || property === 'source' ? property : null;
  const keys = metadataPath(property);
  // The value's JSON type ('number', 'string', 'boolean' on PostgreSQL; 'integer', 'real', 'text', 'true', 'false'
  // on SQLite) and its text, at the path as an array of keys (PostgreSQL's #> and #>>) or a JSON path (SQLite's).
  const type = postgres ? `jsonb_typeof(metadata::jsonb #> ?::text[])` : `json_type(metadata, ?)`;
  const path = postgres ? postgresArray(keys) : `$${keys.map((key) => `."${key.replace(/"/g, '""')}"`).join('')}`;
  const text =
    column ??
    (postgres
      ? `(metadata::jsonb #>> ?::text[])`
      : `CASE json_type(metadata, ?) WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE CAST(json_extract(metadata, ?) AS TEXT) END`);
  const textBindings = column ? [] : postgres ? [path] : [path, path];
  if (typeof value === 'number') {
    if (column) return { text: '1 = 0', bindings: [] };
    const isNumber = postgres ? `${type} = 'number'` : `${type} IN ('integer', 'real')`;
    const number = postgres ? `(metadata::jsonb #>> ?::text[])::double precision` : `json_extract(metadata, ?)`;
    if (operator === 'like' || operator === 'not_like')
      return {
        text: `${isNumber} AND ${operator === 'like' ? '' : 'NOT '}(${text} LIKE ? ESCAPE '\\')`,
        bindings: [path, ...textBindings, `%${escapeLike(String(value))}%`],
      };
    return { text: `${isNumber} AND ${number} ${COMPARISON[operator]} ?`, bindings: [path, path, value] };
  }
  if (typeof value === 'boolean') {
    if (column || (operator !== 'eq' && operator !== 'ne')) return { text: '1 = 0', bindings: [] };
    if (postgres)
      return {
        text: `${type} = 'boolean' AND (metadata::jsonb #>> ?::text[]) ${COMPARISON[operator]} ?`,
        bindings: [path, path, String(value)],
      };
    return {
      text: `${type} IN ('true', 'false') AND ${type} ${COMPARISON[operator]} ?`,
      bindings: [path, path, String(value)],
    };
  }
  const present = column
    ? '1 = 1'
    : postgres
      ? `${type} IN ('string', 'number', 'boolean')`
      : `${type} IN ('integer', 'real', 'text', 'true', 'false')`;
  const presentBindings = column ? [] : [path];
  if (operator === 'like' || operator === 'not_like') {
    const like = postgres ? 'ILIKE' : 'LIKE';
    return {
      text: `${present} AND ${operator === 'like' ? '' : 'NOT '}(${text} ${like} ? ESCAPE '\\')`,
      bindings: [...presentBindings, ...textBindings, `%${escapeLike(value)}%`],
    };
  }
  const collated = postgres ? ' COLLATE "C"' : '';
  return {
    text: `${present} AND ${text}${collated} ${COMPARISON[operator]} ?`,
    bindings: [...presentBindings, ...textBindings, value],
  };
}
