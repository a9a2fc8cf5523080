import type { Knex } from 'knex';
import { dialect, type Db } from '../database/index.js';

/**
 * The ORDER BY of the customer meters list (aggregates-repository.ts's listCustomerMeters, whose query names the
 * listed `meter_totals` row `t`, its customer `c` and its meter `m`). A customer meter is the customer's `c:` row
 * plus, when they were sent events by external id before they existed, that `x:` row (customer-meters.ts adds them
 * up for the wire); the `x:` row is joined here as `x`, so every figure sorted by is the one the wire shows. Each
 * dialect computes it with the same arithmetic, and text sorts by code point on both (`COLLATE "C"` on PostgreSQL,
 * SQLite's default), so both databases list in one order; the row id breaks the remaining ties.
 */

const SUM = (column: string) => `(t.${column} + COALESCE(x.${column}, 0))`;
/** The larger (`>=`) or smaller (`<=`) of two nullable values, null only when both are. */
const EXTREME = (column: string, keep: '>=' | '<=') =>
  `(CASE WHEN x.${column} IS NULL OR t.${column} ${keep} x.${column} THEN COALESCE(t.${column}, x.${column}) ELSE x.${column} END)`;

/** The customer meter's consumed units (filter.ts's quantityOf), from the meter's aggregation. */
function consumedSql(postgres: boolean): string {
  const func = postgres ? `(m.aggregation::jsonb ->> 'func')` : `json_extract(m.aggregation, '$.func')`;
  const distinct =
    '(SELECT count(DISTINCT v.value) FROM meter_unique_values v WHERE v.meter_id = t.meter_id' +
    ' AND (v.subject = t.subject OR v.subject = x.subject))';
  return `CAST(CASE ${func}
    WHEN 'count' THEN ${SUM('events')}
    WHEN 'sum' THEN ${SUM('value_sum')}
    WHEN 'max' THEN COALESCE(${EXTREME('value_max', '>=')}, 0)
    WHEN 'min' THEN COALESCE(${EXTREME('value_min', '<=')}, 0)
    WHEN 'avg' THEN (CASE WHEN ${SUM('value_count')} = 0 THEN 0 ELSE ${SUM('value_sum')} * 1.0 / ${SUM('value_count')} END)
    WHEN 'unique' THEN ${distinct}
    ELSE 0 END AS DOUBLE PRECISION)`;
}

export function orderCustomerMeters(db: Db, query: Knex.QueryBuilder, sorting: readonly string[]): void {
  const postgres = dialect(db) === 'postgres';
  const collate = postgres ? ' COLLATE "C"' : '';
  const consumed = consumedSql(postgres);
  const credited = SUM('credited');
  // The wire's created_at is the earlier row's, its modified_at the later row's change (or creation).
  const changed = (row: 't' | 'x') => `COALESCE(${row}.modified_at, ${row}.created_at)`;
  const expressions: Record<string, string> = {
    created_at: `(CASE WHEN x.created_at IS NOT NULL AND x.created_at < t.created_at THEN x.created_at ELSE t.created_at END)`,
    modified_at: `(CASE WHEN x.id IS NOT NULL AND ${changed('x')} > ${changed('t')} THEN ${changed('x')} ELSE ${changed('t')} END)`,
    customer_id: 'c.id',
    meter_id: 't.meter_id',
    meter_name: `m.name${collate}`,
    consumed_units: consumed,
    credited_units: credited,
    balance: `(${credited} - ${consumed})`,
  };
  query.leftJoin('meter_totals as x', (join) => {
    join
      .on('x.meter_id', '=', 't.meter_id')
      .andOnNotNull('t.customer_id')
      .andOnNull('x.customer_id')
      .andOn(db.raw("x.subject = 'x:' || c.external_id"));
  });
  for (const criterion of sorting) {
    const descending = criterion.startsWith('-');
    const field = descending ? criterion.slice(1) : criterion;
    const direction = descending ? 'DESC' : 'ASC';
    if (field === 'customer_name') {
      // A customer may have no name: last ascending and first descending on both databases, as PostgreSQL does.
      void query.orderByRaw(`(CASE WHEN c.name IS NULL THEN 1 ELSE 0 END) ${direction}, c.name${collate} ${direction}`);
      continue;
    }
    const expression = expressions[field];
    if (expression) void query.orderByRaw(`${expression} ${direction}`);
  }
  query.orderBy('t.id', 'asc');
}
