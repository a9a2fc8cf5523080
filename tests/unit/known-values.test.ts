import { afterAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/core/database/index.js';
import type { BatchDeltas } from '../../src/core/meters/aggregates.js';
import { forgetKnownValues, knownValues } from '../../src/core/meters/known-values.js';

const db = createDb('sqlite::memory:');
const other = createDb('sqlite::memory:');
const postgres = createDb('postgres://postgres@127.0.0.1:5432/unused');
afterAll(async () => {
  await db.destroy();
  await other.destroy();
  await postgres.destroy();
});

function deltas(uniqueValues: BatchDeltas['uniqueValues'], bucketValues: BatchDeltas['bucketValues'] = []) {
  return { totals: [], buckets: [], uniqueValues, bucketValues } satisfies BatchDeltas;
}

describe('values of unique meters known to be stored', () => {
  it('leaves out what a committed write taught it, per meter, subject or hour, and value, apart per database', () => {
    const known = knownValues(db)!;
    const first = deltas(
      [
        ['m1', 'c:a', 'eu'],
        ['m1', 'c:a', 'us'],
      ],
      [['m1', 10, 'eu']],
    );
    expect(known.unknown(first)).toBe(first);
    known.learn(first);
    const next = known.unknown(
      deltas(
        [
          ['m1', 'c:a', 'eu'],
          ['m1', 'c:b', 'eu'],
          ['m2', 'c:a', 'eu'],
          ['m1', 'c:a', 'ap'],
        ],
        [
          ['m1', 10, 'eu'],
          ['m1', 11, 'eu'],
        ],
      ),
    );
    expect(next.uniqueValues).toEqual([
      ['m1', 'c:b', 'eu'],
      ['m2', 'c:a', 'eu'],
      ['m1', 'c:a', 'ap'],
    ]);
    expect(next.bucketValues).toEqual([['m1', 11, 'eu']]);
    // Another database has learnt nothing.
    expect(knownValues(other)!.unknown(first).uniqueValues).toHaveLength(2);
  });

  it('forgets everything when values are deleted, and says so by a new generation', async () => {
    const known = knownValues(db)!;
    known.learn(deltas([['m3', 'c:a', 'eu']]));
    const before = known.generation;
    // The same state from a transaction as from the database.
    await db.transaction(async (trx) => forgetKnownValues(trx, 'org'));
    expect(known.generation).toBe(before + 1);
    expect(known.unknown(deltas([['m3', 'c:a', 'eu']])).uniqueValues).toHaveLength(1);
  });

  it('learns nothing through what was taken before a forget (a delete after the group committed)', async () => {
    const taken = knownValues(db)!;
    await db.transaction(async (trx) => forgetKnownValues(trx, 'org'));
    taken.learn(deltas([['m4', 'c:a', 'eu']]));
    expect(knownValues(db)!.unknown(deltas([['m4', 'c:a', 'eu']])).uniqueValues).toHaveLength(1);
  });

  it('starts again beyond the values it may hold, without a new generation (nothing was deleted)', () => {
    const known = knownValues(other)!;
    const generation = known.generation;
    known.learn(deltas([['m1', 'c:first', 'eu']]));
    const many = Array.from({ length: 200_000 }, (_, i): [string, string, string] => ['m1', `c:${i}`, 'eu']);
    known.learn(deltas(many));
    expect(known.unknown(deltas([['m1', 'c:first', 'eu']])).uniqueValues).toHaveLength(1);
    expect(known.unknown(deltas([['m1', 'c:7', 'eu']])).uniqueValues).toHaveLength(0);
    expect(known.generation).toBe(generation);
  });

  it('is kept per organization on PostgreSQL, under the stored mark (knownValuesOf), not as SQLite keeps it', () => {
    expect(knownValues(postgres)).toBeNull();
  });
});
