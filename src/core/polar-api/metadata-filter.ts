import type { Knex } from 'knex';
import { dialect, type Db } from '../database/index.js';
import type { MetadataQuery } from './metadata-query.js';

/**
 * Adds `metadata[key]=value` filters to a query on a table whose `metadata` column holds a JSON object as text.
 * Values compare as text, so a stored number or boolean matches its JSON spelling (`3`, `true`), as Polar's JSONB
 * `->>` comparison does.
 */
export function whereMetadata(db: Db, query: Knex.QueryBuilder, filters: MetadataQuery, column = 'metadata'): void {
  const postgres = dialect(db) === 'postgres';
  for (const [key, values] of Object.entries(filters)) {
    if (values.length === 0) continue;
    const placeholders = values.map(() => '?').join(', ');
    if (postgres) {
      query.whereRaw(`(??::jsonb ->> ?) in (${placeholders})`, [column, key, ...values]);
    } else {
      query.whereRaw(
        `(select case type when 'true' then 'true' when 'false' then 'false' else cast(value as text) end from json_each(??) where key = ?) in (${placeholders})`,
        [column, key, ...values],
      );
    }
  }
}
