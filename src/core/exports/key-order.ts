import type { Cursor } from './repository.js';

/** Reads one organization's rows after a cursor, at most `limit` of them, in (created_at, id) order. */
export type ReadBatch<Row extends Cursor> = (
  organizationId: string,
  cursor: Cursor | null,
  limit: number,
) => Promise<Row[]>;

function before(a: Cursor, b: Cursor): boolean {
  const at = a.createdAt.getTime() - b.createdAt.getTime();
  return at < 0 || (at === 0 && a.id < b.id);
}

/** One organization's rows, batch after batch, each batch read from where the last one ended. */
async function* organizationBatches<Row extends Cursor>(
  read: ReadBatch<Row>,
  organizationId: string,
  limit: number,
): AsyncGenerator<Row[]> {
  let cursor: Cursor | null = null;
  for (;;) {
    const rows = await read(organizationId, cursor, limit);
    if (rows.length > 0) yield rows;
    if (rows.length < limit) return;
    const last = rows[rows.length - 1]!;
    cursor = { createdAt: last.createdAt, id: last.id };
  }
}

/**
 * The rows of every organization in one (created_at, id) order, in chunks of at most `limit`. Each organization is
 * read as its own range (one index range per query, whatever the number of organizations), and the ranges are
 * merged here, holding at most one batch per organization.
 */
export async function* inKeyOrder<Row extends Cursor>(
  read: ReadBatch<Row>,
  organizationIds: readonly string[],
  limit: number,
): AsyncGenerator<Row[]> {
  if (organizationIds.length === 1) {
    yield* organizationBatches(read, organizationIds[0]!, limit);
    return;
  }
  const sources: Array<{ batches: AsyncGenerator<Row[]>; rows: Row[]; next: number }> = [];
  for (const organizationId of organizationIds) {
    const batches = organizationBatches(read, organizationId, limit);
    const first = await batches.next();
    if (!first.done) sources.push({ batches, rows: first.value, next: 0 });
  }
  let chunk: Row[] = [];
  while (sources.length > 0) {
    let earliest = 0;
    for (let i = 1; i < sources.length; i++) {
      const source = sources[i]!;
      const best = sources[earliest]!;
      if (before(source.rows[source.next]!, best.rows[best.next]!)) earliest = i;
    }
    const source = sources[earliest]!;
    chunk.push(source.rows[source.next++]!);
    if (source.next === source.rows.length) {
      const more = await source.batches.next();
      if (more.done) sources.splice(earliest, 1);
      else {
        source.rows = more.value;
        source.next = 0;
      }
    }
    if (chunk.length === limit) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk;
}
