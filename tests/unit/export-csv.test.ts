import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { zonedTimestamps } from '../../src/core/exports/csv.js';
import { inKeyOrder } from '../../src/core/exports/key-order.js';
import type { Cursor } from '../../src/core/exports/repository.js';

/** What zonedTimestamps writes, asked of Intl for every instant (the form it had before its offsets were cached). */
function reference(timeZone: string): (date: Date) => string {
  const format = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'longOffset',
  });
  return (date) => {
    const parts = Object.fromEntries(format.formatToParts(date).map((part) => [part.type, part.value]));
    const offset = parts.timeZoneName === 'GMT' ? '+00:00' : String(parts.timeZoneName).replace('GMT', '');
    return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`;
  };
}

// Whole-hour, half-hour and 45-minute offsets, DST both ways and in half hours (Lord Howe), a local mean time with
// seconds (Amsterdam before 1937), a skipped day (Apia, 2011-12-30).
const ZONES = [
  'UTC',
  'Europe/Paris',
  'America/New_York',
  'America/Sao_Paulo',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Australia/Lord_Howe',
  'Europe/Amsterdam',
  'Pacific/Apia',
];

describe('zonedTimestamps', () => {
  it('writes what Intl writes, around transitions and anywhere from 1900 to 2100', () => {
    const transitions = [
      '2026-03-29T00:59:59.999Z',
      '2026-10-25T00:30:00Z',
      '2026-03-08T06:59:30Z',
      '2026-11-01T05:15:00Z',
      '2026-04-04T14:45:00Z',
      '1937-06-30T23:30:00Z',
      '1930-01-01T00:00:00Z',
      '2011-12-30T09:00:00Z',
    ].map((text) => Date.parse(text));
    for (const zone of ZONES) {
      const written = zonedTimestamps(zone);
      const expected = reference(zone);
      for (const around of transitions)
        for (let ms = around - 2 * 3_600_000; ms <= around + 2 * 3_600_000; ms += 61_001)
          expect(written(new Date(ms)), `${zone} ${new Date(ms).toISOString()}`).toBe(expected(new Date(ms)));
      fc.assert(
        fc.property(fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2100, 0, 1) }), (ms) => {
          expect(written(new Date(ms))).toBe(expected(new Date(ms)));
        }),
        { numRuns: 300 },
      );
    }
  });

  it('writes nothing for a missing date, and years beyond four digits as Intl does', () => {
    const written = zonedTimestamps('Europe/Paris');
    expect(written(null)).toBe('');
    const far = new Date(Date.UTC(12_000, 5, 1, 12));
    expect(written(far)).toBe(reference('Europe/Paris')(far));
  });
});

describe('inKeyOrder', () => {
  type Row = Cursor & { organizationId: string };
  function table(organizations: Record<string, Array<[number, string]>>) {
    const rows: Row[] = Object.entries(organizations).flatMap(([organizationId, keys]) =>
      keys.map(([at, id]) => ({ organizationId, createdAt: new Date(at), id })),
    );
    const key = (row: Cursor) => `${String(row.createdAt.getTime()).padStart(15, '0')} ${row.id}`;
    const reads: string[] = [];
    const read = (organizationId: string, cursor: Cursor | null, limit: number): Promise<Row[]> => {
      reads.push(organizationId);
      return Promise.resolve(
        rows
          .filter((row) => row.organizationId === organizationId && (!cursor || key(row) > key(cursor)))
          .sort((a, b) => (key(a) < key(b) ? -1 : 1))
          .slice(0, limit),
      );
    };
    return { rows, read, reads, key };
  }

  async function all(chunks: AsyncIterable<Row[]>, limit: number): Promise<Row[]> {
    const out: Row[] = [];
    for await (const chunk of chunks) {
      expect(chunk.length).toBeGreaterThan(0);
      expect(chunk.length).toBeLessThanOrEqual(limit);
      out.push(...chunk);
    }
    return out;
  }

  it('merges organizations into one (created_at, id) order, each read from its own cursor', async () => {
    const { rows, read, reads, key } = table({
      a: [
        [1, 'a1'],
        [3, 'a3'],
        [3, 'b3'],
        [7, 'a7'],
        [8, 'a8'],
      ],
      b: [
        [2, 'c2'],
        [3, 'a2'],
        [9, 'c9'],
      ],
      empty: [],
    });
    const merged = await all(inKeyOrder(read, ['a', 'b', 'empty'], 2), 2);
    expect(merged.map(key)).toEqual(rows.map(key).sort());
    // Batches of 2, each organization read until a short batch: a in 2 + 2 + 1 rows, b in 2 + 1, empty in none.
    expect(reads.filter((id) => id === 'a')).toHaveLength(3);
    expect(reads.filter((id) => id === 'b')).toHaveLength(2);
    expect(reads.filter((id) => id === 'empty')).toHaveLength(1);
  });

  it('reads nothing for no organization, and one organization batch by batch', async () => {
    const { read, reads } = table({ a: [[1, 'x']] });
    expect(await all(inKeyOrder(read, [], 10), 10)).toEqual([]);
    expect(reads).toEqual([]);
    const many = table({ a: Array.from({ length: 25 }, (_, i): [number, string] => [i, `r${i}`]) });
    const rows = await all(inKeyOrder(many.read, ['a'], 10), 10);
    expect(rows.map((row) => row.id)).toEqual(many.rows.map((row) => row.id));
    expect(many.reads).toHaveLength(3);
  });
});
