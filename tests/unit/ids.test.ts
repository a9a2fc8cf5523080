import { describe, expect, it } from 'vitest';
import { uuidv7 } from '../../src/core/kernel/ids.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function millisecondsOf(id: string): number {
  return parseInt(id.replace(/-/g, '').slice(0, 12), 16);
}

describe('uuidv7', () => {
  it('is an RFC 9562 version 7 UUID carrying the given millisecond', () => {
    for (const at of [0, 1, 2 ** 32 - 1, 2 ** 32, Date.UTC(2026, 10, 22, 1, 2, 3, 456), 2 ** 48 - 1]) {
      const id = uuidv7(at);
      expect(id).toMatch(UUID_V7);
      expect(millisecondsOf(id)).toBe(at);
    }
  });

  it('orders ids made in one millisecond by their making, and repeats none', () => {
    const at = Date.UTC(2026, 10, 22);
    // More than one random pool's worth, so refills are crossed.
    const ids = Array.from({ length: 5_000 }, () => uuidv7(at));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    const later = uuidv7(at + 1);
    expect(later > ids[ids.length - 1]!).toBe(true);
  });
});
