import { describe, expect, it } from 'vitest';
import { CoherentCache } from '../../src/core/cache/coherent-cache.js';

describe('CoherentCache', () => {
  it('keeps a fill only when nothing was invalidated since its read began', () => {
    const cache = new CoherentCache<string>(60_000);
    const read = cache.beginRead();
    cache.forget('unrelated');
    cache.fill(read, 'a', 'owner', 'stale', 0);
    expect(cache.get('a', 0)).toBeNull();
    const again = cache.beginRead();
    cache.fill(again, 'a', 'owner', 'fresh', 0);
    expect(cache.get('a', 0)).toBe('fresh');
  });

  it('forgets one key, or every key of an owner', () => {
    const cache = new CoherentCache<number>(60_000);
    cache.put('a', 'u1', 1, 0);
    cache.put('b', 'u1', 2, 0);
    cache.put('c', 'u2', 3, 0);
    cache.forget('a');
    expect([cache.get('a', 0), cache.get('b', 0), cache.get('c', 0)]).toEqual([null, 2, 3]);
    cache.forgetOwner('u1');
    expect([cache.get('b', 0), cache.get('c', 0)]).toEqual([null, 3]);
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it('re-reads entries past their max age, or when the clock went back', () => {
    const cache = new CoherentCache<number>(1_000);
    cache.put('a', 'u', 1, 5_000);
    expect(cache.get('a', 5_999)).toBe(1);
    expect(cache.get('a', 6_000)).toBeNull();
    cache.put('b', 'u', 2, 5_000);
    expect(cache.get('b', 4_000)).toBeNull();
  });

  it('drops the oldest entries beyond its size bound, and keeps the owner index in step', () => {
    const cache = new CoherentCache<number>(60_000, 2);
    cache.put('a', 'u1', 1, 0);
    cache.put('b', 'u2', 2, 0);
    cache.put('c', 'u1', 3, 0);
    expect(cache.size).toBe(2);
    expect(cache.get('a', 0)).toBeNull();
    cache.forgetOwner('u1');
    expect([cache.get('b', 0), cache.get('c', 0)]).toEqual([2, null]);
  });
});
