import { request } from 'undici';

/**
 * What the fuzz suites share: a seeded PRNG (the same values on every run), the hostile values, JSON Schema walking
 * (OpenAPI's and zod's), and a small runner that sends requests with moderate concurrency and counts the answers.
 */

/** mulberry32: tiny, fast and good enough to spread samples evenly; seeded so every run sends the same requests. */
export function seededRandom(seed: string): () => number {
  let state = 2166136261;
  for (const char of seed) state = Math.imul(state ^ char.charCodeAt(0), 16777619);
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Another seed explores other samples (TILL_FUZZ_SEED=7 npx vitest run tests/fuzz); CI keeps the default. */
const RUN_SEED = process.env.TILL_FUZZ_SEED ?? '';

/** `count` distinct items of `items`, chosen by a PRNG seeded with `seed` (and the run's seed, if any). */
export function sample<T>(items: readonly T[], count: number, seed: string): T[] {
  const random = seededRandom(RUN_SEED + seed);
  const pool = [...items];
  const chosen: T[] = [];
  while (chosen.length < count && pool.length > 0) chosen.push(pool.splice(Math.floor(random() * pool.length), 1)[0]!);
  return chosen;
}

export const deepArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
export const deepObjects = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const MEGABYTE = 1_000_000;

/** A hostile JSON value as raw JSON text: `-0`, `1e309` and duplicate keys cannot be written with JSON.stringify. */
export interface Hostile {
  label: string;
  json: string;
}

const hostile = (label: string, json: string): Hostile => ({ label, json });

export const HOSTILE_VALUES: readonly Hostile[] = [
  hostile('null', 'null'),
  hostile('true', 'true'),
  hostile('zero', '0'),
  hostile('negative', '-1'),
  hostile('negative zero', '-0'),
  hostile('fraction', '1.5'),
  hostile('1e309', '1e309'),
  hostile('-1e309', '-1e309'),
  hostile('2^53+1', '9007199254740993'),
  hostile('huge integer', '123456789012345678901234567890'),
  hostile('huge negative', '-99999999999999999999'),
  hostile('int32 overflow', '2147483648'),
  hostile('empty string', '""'),
  hostile('NUL', '"a\\u0000b"'),
  hostile('lone high surrogate', '"a\\ud800b"'),
  hostile('lone low surrogate', '"\\udfff"'),
  hostile('1 MB string', JSON.stringify('x'.repeat(MEGABYTE))),
  hostile('1 MB of NUL-ended text', JSON.stringify('y'.repeat(MEGABYTE - 1) + '\u0000')),
  hostile('empty array', '[]'),
  hostile('empty object', '{}'),
  hostile('array of null', '[null]'),
  hostile('nested object', '{"a":{"b":[1,{"c":null}]}}'),
  hostile('object with NUL key', '{"a\\u0000":"b"}'),
  hostile('invalid uuid', '"not-a-uuid"'),
  hostile('nil uuid', '"00000000-0000-0000-0000-000000000000"'),
  hostile('uuid with NUL', '"3fa85f64-5717-4562-b3fc-2c963f66afa6\\u0000"'),
  hostile('impossible date', '"2026-13-45T99:99:99Z"'),
  hostile('year 275760', '"+275760-09-13T00:00:00.001Z"'),
  hostile('SQL', `"' OR 1=1 --"`),
  hostile('LIKE wildcards', '"%_\\\\"'),
  hostile('path traversal', '"../../etc/passwd"'),
  hostile('protocol-relative URL', '"//evil.example"'),
  hostile('javascript URL', '"javascript:alert(1)"'),
  hostile('bidi and emoji', '"\\u202e\\ud83d\\ude00\\u0301"'),
  hostile('10,000 nested arrays', deepArrays(10_000)),
  hostile('10,000 nested objects', deepObjects(10_000)),
];

/** Query and path values, already percent-encoded: NUL, invalid UTF-8 (a lone surrogate's bytes), bad escapes. */
export const HOSTILE_URL_VALUES: readonly string[] = [
  '',
  'null',
  '-1',
  '-0',
  '0',
  '1e309',
  '99999999999999999999',
  '1.5',
  'true',
  'not-a-uuid',
  '00000000-0000-0000-0000-000000000000',
  'a%00b',
  '%ED%A0%80',
  '%FF%FE',
  '%',
  '%zz',
  '..%2F..%2Fetc',
  '%27%20OR%201%3D1%20--',
  '%25_%5C',
  '%5B%5D',
  '%7B%22a%22%3A1%7D',
  'x'.repeat(8_000),
  '%E2%80%AE%F0%9F%98%80',
  '%2F%2Fevil.example',
  '%2F.%2F%2Fevil.example',
  '%2Fa%2F..%2F%2Fevil.example',
  'javascript%3Aalert(1)',
  'http%3A%2F%2F%5B',
];

/** Credentials no client should present: empty, huge, of the wrong kind, or cookies that do not parse. */
export const HOSTILE_CREDENTIALS: ReadonlyArray<Record<string, string>> = [
  { authorization: 'Bearer' },
  { authorization: 'Bearer ' },
  { authorization: `Bearer till_oat_${'x'.repeat(5_000)}` },
  { authorization: 'Bearer polar_cst_not-a-session' },
  { authorization: 'Basic Zm9vOmJhcg==' },
  { authorization: 'Bearer a.b.c' },
  { 'x-api-key': 'x'.repeat(5_000) },
  { 'x-api-key': '' },
  { cookie: `better-auth.session_token=${'x'.repeat(3_000)}.sig` },
  { cookie: 'better-auth.session_token=%E0%A4%A; better-auth.session_data=%' },
  { cookie: 'better-auth.session_token="unterminated' },
  { 'idempotency-key': 'k'.repeat(300) },
];

/** Body-level abuse, sent instead of a JSON body: bad types, bad JSON, deep nesting, too big, no body at all. */
export interface RawBody {
  label: string;
  body?: string | Buffer;
  contentType?: string;
}

export const HOSTILE_BODIES: readonly RawBody[] = [
  { label: 'no body' },
  { label: 'empty JSON body', body: '', contentType: 'application/json' },
  { label: 'whitespace body', body: '   \n', contentType: 'application/json' },
  { label: 'invalid JSON', body: '{"a":', contentType: 'application/json' },
  { label: 'JSON with a trailing comma', body: '{"a":1,}', contentType: 'application/json' },
  { label: 'text/plain', body: '{}', contentType: 'text/plain' },
  { label: 'form', body: 'a=1&b=%00', contentType: 'application/x-www-form-urlencoded' },
  { label: 'multipart', body: '--x\r\n\r\n--x--', contentType: 'multipart/form-data; boundary=x' },
  { label: 'no content type', body: '{}' },
  { label: 'JSON with charset latin1', body: '{}', contentType: 'application/json; charset=latin1' },
  { label: 'JSON null', body: 'null', contentType: 'application/json' },
  { label: 'JSON number', body: '1e309', contentType: 'application/json' },
  { label: 'JSON string', body: '"a\\u0000"', contentType: 'application/json' },
  { label: 'JSON array', body: '[{}]', contentType: 'application/json' },
  { label: 'invalid UTF-8', body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]) },
  { label: '10,000 nested arrays', body: deepArrays(10_000), contentType: 'application/json' },
  { label: '10,000 nested objects', body: deepObjects(10_000), contentType: 'application/json' },
  { label: '2 MB body', body: JSON.stringify({ a: 'x'.repeat(2 * MEGABYTE) }), contentType: 'application/json' },
];

/** JSON text with `fragment` placed at `path` in `base` (intermediate objects and arrays created as needed). */
export function withValueAt(base: unknown, path: ReadonlyArray<string | number>, fragment: string): string {
  const SLOT = '__fuzz_slot_4f1c__';
  if (path.length === 0) return fragment;
  const root: unknown = structuredClone(base ?? {});
  let at = (typeof root === 'object' && root !== null ? root : {}) as Record<string | number, unknown>;
  const top = at;
  path.forEach((key, index) => {
    if (index === path.length - 1) {
      at[key] = SLOT;
      return;
    }
    const next = at[key];
    if (typeof next !== 'object' || next === null) at[key] = typeof path[index + 1] === 'number' ? [] : {};
    at = at[key] as Record<string | number, unknown>;
  });
  return JSON.stringify(top).replace(`"${SLOT}"`, () => fragment);
}

/** Every top-level key sent twice, the first time with a hostile value: parsers must agree on which one wins. */
export function withDuplicateKeys(base: Record<string, unknown>, fragment: string): string {
  const text = JSON.stringify(base);
  const duplicates = Object.keys(base)
    .map((key) => `${JSON.stringify(key)}:${fragment}`)
    .join(',');
  if (!duplicates) return `{"a":${fragment},"a":1}`;
  return `{${duplicates},${text.slice(1)}`;
}

/** A JSON Schema as OpenAPI and zod's toJSONSchema write them, as far as the suites need. */
export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  minLength?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  default?: unknown;
}

export type Resolve = (schema: JsonSchema) => JsonSchema;

/** The schema behind $refs (into `components`), unions flattened to their first non-null member's properties merged. */
export function resolver(components: Record<string, JsonSchema>): Resolve {
  const resolve: Resolve = (schema) => {
    let current = schema;
    for (let hops = 0; current.$ref && hops < 20; hops++) {
      const name = current.$ref.split('/').pop()!;
      current = { ...current, ...components[name], $ref: components[name]?.$ref };
    }
    return current;
  };
  return resolve;
}

function variants(schema: JsonSchema, resolve: Resolve): JsonSchema[] {
  const resolved = resolve(schema);
  const members = [...(resolved.anyOf ?? []), ...(resolved.oneOf ?? []), ...(resolved.allOf ?? [])];
  if (members.length === 0) return [resolved];
  return members.flatMap((member) => variants(member, resolve)).filter((member) => member.type !== 'null');
}

/** Every field path in a body schema: top-level properties, and one level into objects and arrays of objects. */
export function fieldPaths(schema: JsonSchema, resolve: Resolve, depth = 2): Array<Array<string | number>> {
  const paths: Array<Array<string | number>> = [];
  const seen = new Set<string>();
  const walk = (at: JsonSchema, prefix: Array<string | number>, left: number) => {
    for (const variant of variants(at, resolve)) {
      for (const [name, property] of Object.entries(variant.properties ?? {})) {
        const path = [...prefix, name];
        const key = JSON.stringify(path);
        if (seen.has(key)) continue;
        seen.add(key);
        paths.push(path);
        if (left <= 1) continue;
        // A free-form object (metadata): one key of our own inside it.
        if (variants(property, resolve).some((inner) => inner.type === 'object' && !inner.properties))
          paths.push([...path, 'fuzz_key']);
        walk(property, path, left - 1);
        for (const inner of variants(property, resolve))
          if (inner.type === 'array' && inner.items) walk(inner.items, [...path, 0], left - 1);
      }
    }
  };
  walk(schema, [], depth);
  return paths;
}

/**
 * A plausible value for a schema: required properties only, real ids where `idFor` knows the field. It need not be
 * valid; hostile values are set into it one field at a time, so most requests get past the shape of the body.
 */
export function plausible(
  schema: JsonSchema,
  resolve: Resolve,
  idFor: (field: string) => string | undefined,
  field = '',
  depth = 0,
): unknown {
  const [variant] = variants(schema, resolve);
  if (!variant || depth > 6) return null;
  if (variant.const !== undefined) return variant.const;
  if (variant.enum) return variant.enum[0];
  if (variant.default !== undefined && variant.default !== null) return variant.default;
  const type = Array.isArray(variant.type) ? variant.type[0] : variant.type;
  const known = idFor(field);
  switch (type) {
    case 'string':
      if (known) return known;
      if (variant.format === 'uuid') return '3fa85f64-5717-4562-b3fc-2c963f66afa6';
      if (variant.format === 'email' || /email/i.test(field)) return 'fuzz@example.com';
      if (variant.format === 'uri' || /url$/i.test(field)) return 'https://example.com/fuzz';
      if (variant.format === 'date-time') return '2026-11-21T12:00:00Z';
      return 'fuzz value';
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return false;
    case 'array': {
      if (field === 'products' && idFor('product_id')) return [idFor('product_id')];
      const count = Math.max(variant.minItems ?? 0, 0);
      return Array.from({ length: count }, () =>
        plausible(variant.items ?? {}, resolve, idFor, field.replace(/s$/, '_id'), depth + 1),
      );
    }
    case 'object':
    default: {
      if (!variant.properties) return {};
      const value: Record<string, unknown> = {};
      for (const name of variant.required ?? [])
        value[name] = plausible(variant.properties[name] ?? {}, resolve, idFor, name, depth + 1);
      return value;
    }
  }
}

export interface FuzzRequest {
  label: string;
  method: string;
  /** Already percent-encoded path and query. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface FuzzAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

/** Sends one request. An event stream is closed once its headers are in: its status is what counts. */
export async function send(baseUrl: string, fuzz: FuzzRequest): Promise<FuzzAnswer> {
  const response = await request(baseUrl + fuzz.path, {
    method: fuzz.method as 'GET',
    headers: fuzz.headers,
    body: fuzz.body,
  });
  const type = String(response.headers['content-type'] ?? '');
  if (type.startsWith('text/event-stream')) {
    response.body.destroy();
    return { status: response.statusCode, headers: response.headers, text: '', json: undefined };
  }
  const text = await response.body.text();
  let json: unknown = undefined;
  if (type.includes('json') && text) json = JSON.parse(text);
  return { status: response.statusCode, headers: response.headers, text, json };
}

/** Counts answers by status and keeps the first failures, so one run reports every broken route at once. */
export class Tally {
  readonly byStatus = new Map<number, number>();
  readonly failures: string[] = [];

  count(status: number): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
  }

  fail(message: string): void {
    if (this.failures.length < 200) this.failures.push(message);
  }

  get total(): number {
    return [...this.byStatus.values()].reduce((sum, count) => sum + count, 0);
  }

  summary(name: string): string {
    const counts = [...this.byStatus].sort(([a], [b]) => a - b).map(([status, count]) => `${status}: ${count}`);
    return `${name}: ${this.total} requests; by status ${counts.join(', ')}`;
  }
}

/**
 * Runs `requests` with `concurrency` in flight, checking each answer with `check` (which returns a problem or null).
 */
export async function runAll(
  baseUrl: string,
  requests: readonly FuzzRequest[],
  tally: Tally,
  check: (fuzz: FuzzRequest, answer: FuzzAnswer) => string | null,
  concurrency = 8,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const fuzz = requests[next++]!;
      let answer: FuzzAnswer;
      try {
        answer = await send(baseUrl, fuzz);
      } catch (error) {
        tally.count(0);
        tally.fail(`${fuzz.label}: no answer (${String(error)})`);
        continue;
      }
      tally.count(answer.status);
      const problem = check(fuzz, answer);
      if (problem) tally.fail(`${fuzz.label} → ${answer.status}: ${problem} ${answer.text.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
