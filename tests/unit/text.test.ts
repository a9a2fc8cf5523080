import { describe, expect, it } from 'vitest';
import { nulPath, storableText, wellFormed, wellFormedJson } from '../../src/core/kernel/text.js';

describe('wellFormed', () => {
  it('turns lone surrogates into U+FFFD and keeps pairs', () => {
    expect(wellFormed('a\ud800')).toBe('a\uFFFD');
    expect(wellFormed('\udc00a')).toBe('\uFFFDa');
    expect(wellFormed('\udc00\ud800')).toBe('\uFFFD\uFFFD');
    expect(wellFormed('x\u{1F600}y')).toBe('x\u{1F600}y');
    expect(Buffer.from(wellFormed('a\ud800b')).toString('utf8')).toBe(wellFormed('a\ud800b'));
  });

  it('reaches every string and key of a JSON value, and a "__proto__" key stays a key', () => {
    const parsed = JSON.parse('{"k\\ud800":["a\\udc00",{"__proto__":"\\ud800"}],"n":1,"b":true,"z":null}');
    const clean = wellFormedJson(parsed) as Record<string, unknown>;
    expect(clean).toEqual({ 'k\uFFFD': ['a\uFFFD', JSON.parse('{"__proto__":"\\ufffd"}')], n: 1, b: true, z: null });
    expect(Object.getPrototypeOf((clean['k\uFFFD'] as object[])[1])).toBe(Object.prototype);
    expect(JSON.stringify(clean)).not.toMatch(/\\ud[89a-f]/);
  });
});

describe('nulPath', () => {
  it('names where a NUL is, in a value or a key', () => {
    expect(nulPath('a\u0000')).toEqual([]);
    expect(nulPath({ a: [1, { b: 'x\u0000' }] })).toEqual(['a', 1, 'b']);
    expect(nulPath({ a: { 'k\u0000': 1 } })).toEqual(['a', 'k\u0000']);
    expect(nulPath({ a: 'ok' })).toBeNull();
  });

  it('finds the first in document order however deep, among many values without one', () => {
    const events = Array.from({ length: 1_000 }, (_, i) => ({ name: 'e', metadata: { n: i, tags: ['a', 'b'] } }));
    expect(nulPath({ events })).toBeNull();
    events[700]!.metadata.tags[1] = 'b\u0000';
    events[900]!.metadata.tags[0] = 'a\u0000';
    expect(nulPath({ events })).toEqual(['events', 700, 'metadata', 'tags', 1]);
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { ok: 1, ['x\u0000']: 2 });
    expect(nulPath([bare])).toEqual([0, 'x\u0000']);
    expect(nulPath(Object.assign(Object.create(null) as Record<string, unknown>, { ok: 'yes' }))).toBeNull();
  });
});

describe('storableText', () => {
  it('replaces NUL, cuts at the limit without splitting a pair, and leaves no lone surrogate', () => {
    expect(storableText('a\u0000b', 10)).toBe('a\uFFFDb');
    expect(storableText('abc\u{1F600}', 4)).toBe('abc');
    expect(storableText('abc\u{1F600}', 5)).toBe('abc\u{1F600}');
    expect(storableText('ab\udc00', 10)).toBe('ab\uFFFD');
    expect(storableText('abcdef', 3)).toBe('abc');
  });
});
