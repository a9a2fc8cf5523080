import { afterAll, describe, expect, it } from 'vitest';
import { changeMark, createDb, keptWhileUnchanged, markChanged } from '../../src/core/database/index.js';

const db = createDb('sqlite::memory:');
const other = createDb('sqlite::memory:');
afterAll(async () => {
  await db.destroy();
  await other.destroy();
});

describe('change marks', () => {
  it('count the writes begun per table and scope, the same from a transaction, apart per database', async () => {
    expect(changeMark(db, 'customers', 'org1')).toBe(0);
    markChanged(db, 'customers', 'org1');
    markChanged(db, 'customers', 'org1');
    expect(changeMark(db, 'customers', 'org1')).toBe(2);
    expect(changeMark(db, 'customers', 'org2')).toBe(0);
    expect(changeMark(db, 'meters', 'org1')).toBe(0);
    expect(changeMark(other, 'customers', 'org1')).toBe(0);
    await db.transaction(async (trx) => {
      markChanged(trx, 'customers', 'org1');
      expect(changeMark(trx, 'customers', 'org1')).toBe(3);
    });
    expect(changeMark(db, 'customers', 'org1')).toBe(3);
  });

  it('keep a loaded value until the next write begins, and never one read while a write began', async () => {
    let loads = 0;
    const load = async () => ++loads;
    expect(await keptWhileUnchanged(db, 'meters', 'orgA', load)).toEqual({ value: 1, mark: 0 });
    expect(await keptWhileUnchanged(db, 'meters', 'orgA', load)).toEqual({ value: 1, mark: 0 });
    markChanged(db, 'meters', 'orgA');
    expect(await keptWhileUnchanged(db, 'meters', 'orgA', load)).toEqual({ value: 2, mark: 1 });
    // A write begins while the value is being read: it is answered under the mark it was read under, and not kept.
    const racing = async () => {
      const value = ++loads;
      markChanged(db, 'meters', 'orgA');
      return value;
    };
    markChanged(db, 'meters', 'orgA');
    expect(await keptWhileUnchanged(db, 'meters', 'orgA', racing)).toEqual({ value: 3, mark: 2 });
    expect(await keptWhileUnchanged(db, 'meters', 'orgA', load)).toEqual({ value: 4, mark: 3 });
    expect(await keptWhileUnchanged(db, 'meters', 'orgA', load)).toEqual({ value: 4, mark: 3 });
  });
});
