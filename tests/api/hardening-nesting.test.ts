import { beforeAll, describe, expect, it } from 'vitest';
import { nestsDeeperThan, MAX_JSON_DEPTH } from '../../src/daemon/middleware/json-depth.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';

const arrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const objects = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

describe('JSON nesting depth', () => {
  it('counts arrays and objects, not brackets inside strings', () => {
    expect(nestsDeeperThan(arrays(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(nestsDeeperThan(arrays(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(nestsDeeperThan(objects(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(
      nestsDeeperThan(JSON.stringify({ name: '['.repeat(1000), quote: '\\"[[[', list: [[1], [2]] }), MAX_JSON_DEPTH),
    ).toBe(false);
    expect(nestsDeeperThan(arrays(100_000), MAX_JSON_DEPTH)).toBe(true);
    // Strings are jumped over: an escaped quote does not end one, an escaped backslash before a quote does.
    const deep = arrays(MAX_JSON_DEPTH + 1);
    expect(nestsDeeperThan(JSON.stringify({ a: `\\"${deep}`, b: '\\' }), MAX_JSON_DEPTH)).toBe(false);
    expect(nestsDeeperThan(`{"a": "\\\\", "b": ${deep}}`, MAX_JSON_DEPTH)).toBe(true);
    expect(nestsDeeperThan(`{"a": "\\\\\\" ${deep}"}`, MAX_JSON_DEPTH)).toBe(false);
    expect(nestsDeeperThan(`{"a": "${deep}`, MAX_JSON_DEPTH)).toBe(false);
  });
});

describe('deeply nested JSON bodies', () => {
  const daemon = useTestDaemon();
  let merchant: Merchant;
  beforeAll(async () => {
    merchant = await createMerchant(daemon());
  });
  const raw = (body: string) => ({ rawBody: body, headers: { 'content-type': 'application/json' } });

  it('/v1: 422 json_invalid for 10,000 and 20,000 levels, never a 500', async () => {
    for (const body of [arrays(10_000), objects(10_000), `{"name":"x","metadata":${objects(20_000)}}`]) {
      const response = await merchant.api.call('POST', '/v1/products/', raw(body));
      expect(response.status).toBe(422);
      expect(response.json).toEqual({
        error: 'RequestValidationError',
        detail: [{ loc: ['body', 0], msg: `JSON nested deeper than ${MAX_JSON_DEPTH} levels`, type: 'json_invalid' }],
      });
    }
  });

  it('/v1: the public checkout routes too', async () => {
    const response = await new TestClient(daemon().url).call(
      'POST',
      '/v1/checkouts/client/polar_c_unknown/confirm',
      raw(objects(20_000)),
    );
    expect(response.status).toBe(422);
    expect(response.json.detail[0].type).toBe('json_invalid');
  });

  it('/v1: brackets inside strings are text, and a NUL deep in a shallow body is still found', async () => {
    const bracketed = await merchant.api.post('/v1/products/', { name: '['.repeat(5000), prices: [] });
    expect(bracketed.json?.detail?.[0]?.type).not.toBe('json_invalid');
    const nul = await merchant.api.post('/v1/products/', {
      name: 'ok',
      metadata: { a: 'x' },
      prices: [{ amount_type: 'free' }],
      description: 'a\u0000b',
    });
    expect(nul.status).toBe(422);
    expect(nul.json.detail).toEqual([
      { loc: ['body', 'description'], msg: 'String should not contain NUL characters', type: 'string_type' },
    ]);
  });

  it('/api/auth: 400 in Better Auth shape', async () => {
    for (const body of [arrays(10_000), `{"email":"a@b.c","password":"12345678","name":${objects(20_000)}}`]) {
      const response = await new TestClient(daemon().url).call('POST', '/api/auth/sign-up/email', raw(body));
      expect(response.status).toBe(400);
      expect(response.json).toEqual({
        code: 'JSON_TOO_DEEP',
        message: `JSON in request body is nested deeper than ${MAX_JSON_DEPTH} levels`,
      });
    }
  });
});
