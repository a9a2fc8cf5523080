import { afterAll, describe, expect, it } from 'vitest';
import { createChanging } from '../../src/core/cache/changing.js';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { createDb } from '../../src/core/database/index.js';
import { InvalidationBus } from '../../src/core/cache/invalidation.js';
import { merchantInvalidation, ReadCache } from '../../src/core/cache/read-cache.js';

const db = createDb('sqlite::memory:');
afterAll(() => db.destroy());

function setup() {
  const bus = new InvalidationBus('sqlite::memory:', {
    onKey: (key) => cache.forgetKey(key),
    onReset: () => cache.clear(),
  });
  const cache = new ReadCache(bus, new ManualClock(0), 60_000);
  return { cache, changing: createChanging(db, bus) };
}

const row = (name: string) => async () => ({ value: { name, tags: ['a'] }, organizationId: 'org1' });

describe('ReadCache', () => {
  it('hands out frozen values and forgets an organization when a change to it commits', async () => {
    const { cache, changing } = setup();
    const first = await cache.read(db, 'k', row('first'));
    expect(Object.isFrozen(first) && Object.isFrozen(first!.tags)).toBe(true);
    expect((await cache.read(db, 'k', row('second')))!.name).toBe('first');
    await changing(async (_trx, announce) => announce([merchantInvalidation('org2')]));
    expect((await cache.read(db, 'k', row('second')))!.name).toBe('first');
    await changing(async (_trx, announce) => announce([merchantInvalidation('org1')]));
    expect((await cache.read(db, 'k', row('third')))!.name).toBe('third');
  });

  it('never keeps what a transaction read, and a changing transaction reads past the cache', async () => {
    const { cache, changing } = setup();
    await db.transaction(async (trx) => {
      expect((await cache.read(trx, 'k', row('inside')))!.name).toBe('inside');
    });
    expect(cache.size).toBe(0);
    await cache.read(db, 'k', row('kept'));
    await db.transaction(async (trx) => {
      expect(cache.for(trx)).toBe(cache);
      expect((await cache.read(trx, 'k', row('other')))!.name).toBe('kept');
    });
    await changing(async (trx, announce) => {
      announce([merchantInvalidation('org1')]);
      expect(cache.for(trx)).toBeNull();
      expect((await cache.read(trx, 'k', row('uncommitted')))!.name).toBe('uncommitted');
    });
    expect((await cache.read(db, 'k', row('after')))!.name).toBe('after');
  });

  it('does not keep a read that an invalidation overtook', async () => {
    const { cache } = setup();
    const stale = cache.read(db, 'k', async () => {
      cache.forgetKey(merchantInvalidation('org1'));
      return { value: { name: 'stale' }, organizationId: 'org1' };
    });
    expect((await stale)!.name).toBe('stale');
    expect(cache.size).toBe(0);
  });
});
