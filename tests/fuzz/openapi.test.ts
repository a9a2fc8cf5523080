import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import {
  fieldPaths,
  HOSTILE_BODIES,
  HOSTILE_CREDENTIALS,
  HOSTILE_URL_VALUES,
  HOSTILE_VALUES,
  plausible,
  resolver,
  runAll,
  sample,
  send,
  Tally,
  withDuplicateKeys,
  withValueAt,
  type FuzzAnswer,
  type FuzzRequest,
  type JsonSchema,
} from './generators.js';
import { seedV1, type Seeded } from './seed.js';

// Every operation of Till's own OpenAPI document, every path and query parameter and every body field, sent hostile
// values signed in and not. No answer may be a 5xx, and every error must be in Polar's shapes.

interface Operation {
  operationId: string;
  summary?: string;
  security?: unknown[];
  parameters?: Array<{ name: string; in: 'path' | 'query' }>;
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
}

interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, JsonSchema> };
}

const PATH_SAMPLES = 4;
const QUERY_SAMPLES = 3;
const FIELD_SAMPLES = 2;
const AUTHED_BODIES = 8;
const CREDENTIAL_SAMPLES = 2;
const ANONYMOUS_BODIES = 3;

const tally = new Tally();
let daemon: TestDaemon | undefined;
let seeded: Seeded;

beforeAll(async () => {
  daemon = await startTestDaemon({ rateLimit: false, webhooks: { allowPrivateUrls: true, timeoutMs: 1_000 } });
  seeded = await seedV1(daemon);
});

afterAll(async () => {
  console.log(tally.summary('fuzz /v1'));
  await daemon?.stop();
});

function realValue(template: string, param: string): string {
  const matches = seeded.byPath.filter(([prefix, name]) => name === param && template.startsWith(prefix));
  matches.sort(([a], [b]) => b.length - a.length);
  return encodeURIComponent(matches[0]?.[2] ?? '3fa85f64-5717-4562-b3fc-2c963f66afa6');
}

function pathWith(template: string, values: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => values[name] ?? realValue(template, name));
}

/** Every request for one operation: the real call, then each input position made hostile in turn. */
function requestsFor(document: OpenApiDocument, template: string, method: string, operation: Operation): FuzzRequest[] {
  const resolve = resolver(document.components.schemas);
  const verb = method.toUpperCase();
  const name = `${verb} ${template}`;
  const token = template.startsWith('/v1/customer-portal/') ? seeded.customerSessionToken : seeded.merchant.token;
  const credentials = { authed: { authorization: `Bearer ${token}` }, anonymous: {} };
  const requests: FuzzRequest[] = [];
  const json = (headers: Record<string, string>) => ({ ...headers, 'content-type': 'application/json' });
  const path = pathWith(template, {});
  const pathParams = (operation.parameters ?? []).filter((param) => param.in === 'path');
  const queryParams = (operation.parameters ?? []).filter((param) => param.in === 'query');
  const schema = operation.requestBody?.content['application/json']?.schema;
  const base = schema ? plausible(schema, resolve, (field) => seeded.byField[field]) : undefined;
  const baseText = base === undefined ? undefined : JSON.stringify(base);

  for (const [who, headers] of Object.entries(credentials)) {
    requests.push({
      label: `${name} (${who}, real ids)`,
      method: verb,
      path,
      headers: baseText ? json(headers) : headers,
      body: baseText,
    });
  }
  for (const headers of sample(HOSTILE_CREDENTIALS, CREDENTIAL_SAMPLES, `${name} credentials`)) {
    requests.push({
      label: `${name} credentials ${JSON.stringify(headers).slice(0, 60)}`,
      method: verb,
      path,
      headers: baseText ? json(headers) : headers,
      body: baseText,
    });
  }
  for (const param of pathParams) {
    for (const value of sample(HOSTILE_URL_VALUES, PATH_SAMPLES, `${name} path ${param.name}`)) {
      requests.push({
        label: `${name} path ${param.name}=${value.slice(0, 40)}`,
        method: verb,
        path: pathWith(template, { [param.name]: value }),
        headers: baseText ? json(credentials.authed) : credentials.authed,
        body: baseText,
      });
    }
  }
  for (const param of queryParams) {
    const values = sample(HOSTILE_URL_VALUES, QUERY_SAMPLES + 1, `${name} query ${param.name}`);
    values.forEach((value, index) => {
      const who = index === 0 ? 'anonymous' : 'authed';
      requests.push({
        label: `${name} (${who}) query ${param.name}=${value.slice(0, 40)}`,
        method: verb,
        path: `${path}?${param.name}=${value}`,
        headers: credentials[who],
      });
    });
  }
  // Polar's deepObject metadata filters, which the document names in the summary rather than as parameters.
  if (operation.summary?.includes('metadata[key]')) {
    for (const value of sample(HOSTILE_URL_VALUES, QUERY_SAMPLES, `${name} metadata`)) {
      for (const query of [`metadata%5Bfuzz_key%5D=${value}`, `metadata%5B${value}%5D=x`]) {
        requests.push({
          label: `${name} query ${query.slice(0, 60)}`,
          method: verb,
          path: `${path}?${query}`,
          headers: credentials.authed,
        });
      }
    }
  }
  if (queryParams.length > 0) {
    // Every parameter twice, and once as PHP-style arrays: a repeated key must not turn a string into an array.
    requests.push({
      label: `${name} every query parameter repeated`,
      method: verb,
      path: `${path}?${queryParams.map((param) => `${param.name}=1&${param.name}=-1`).join('&')}`,
      headers: credentials.authed,
    });
    requests.push({
      label: `${name} query parameters as arrays`,
      method: verb,
      path: `${path}?${queryParams.map((param) => `${param.name}%5B%5D=1&${param.name}%5Ba%5D=2`).join('&')}`,
      headers: credentials.authed,
    });
  }
  if (verb === 'GET') return requests;

  if (schema) {
    for (const field of fieldPaths(schema, resolve)) {
      for (const value of sample(HOSTILE_VALUES, FIELD_SAMPLES, `${name} body ${field.join('.')}`)) {
        requests.push({
          label: `${name} body.${field.join('.')} = ${value.label}`,
          method: verb,
          path,
          headers: json(credentials.authed),
          body: withValueAt(base, field, value.json),
        });
      }
    }
    const [duplicate] = sample(HOSTILE_VALUES, 1, `${name} duplicate keys`);
    requests.push({
      label: `${name} duplicate keys (${duplicate!.label} first)`,
      method: verb,
      path,
      headers: json(credentials.authed),
      body: withDuplicateKeys((base ?? {}) as Record<string, unknown>, duplicate!.json),
    });
  }
  // Sampled per operation with the operation as the seed, so across the document every kind is sent many times.
  for (const [who, bodies] of [
    ['authed', sample(HOSTILE_BODIES, schema ? AUTHED_BODIES : ANONYMOUS_BODIES, `${name} bodies`)],
    ['anonymous', sample(HOSTILE_BODIES, ANONYMOUS_BODIES, `${name} anonymous bodies`)],
  ] as const) {
    for (const raw of bodies) {
      const headers: Record<string, string> = { ...credentials[who] };
      if (raw.contentType) headers['content-type'] = raw.contentType;
      requests.push({ label: `${name} (${who}) body: ${raw.label}`, method: verb, path, headers, body: raw.body });
    }
  }
  return requests;
}

/** 422s of Polar's OpenAPI whose body is `{error, detail}` rather than a validation list. */
const DOCUMENTED_422 = new Set(['MissingInvoiceBillingDetails']);

/** Polar's error shapes: `{error, detail}`, and a 422's `detail` a list of `{loc, msg, type}`. */
function checkPolar(fuzz: FuzzRequest, answer: FuzzAnswer): string | null {
  if (answer.status >= 500) return 'server error';
  if (answer.status >= 300 && answer.status < 400) {
    if (!fuzz.path.includes('/redirect')) return 'unexpected redirect';
    const location = String(answer.headers.location ?? '');
    return location.startsWith('//') || !location ? `bad Location ${location}` : null;
  }
  if (answer.status < 400) return null;
  const body = answer.json as { error?: unknown; detail?: unknown } | undefined;
  // Polar documents a few 422s that are not validation errors, shaped {error, detail: string}.
  if (answer.status === 422 && typeof body?.error === 'string' && DOCUMENTED_422.has(body.error))
    return typeof body.detail === 'string' ? null : `${body.error} without a detail`;
  if (answer.status === 422) {
    const detail = body?.detail;
    if (!Array.isArray(detail) || detail.length === 0) return '422 without a detail list';
    const wellFormed = detail.every(
      (issue: { loc?: unknown; msg?: unknown; type?: unknown }) =>
        Array.isArray(issue.loc) && typeof issue.msg === 'string' && typeof issue.type === 'string',
    );
    return wellFormed ? null : '422 detail entries without loc, msg and type';
  }
  if (typeof body?.error !== 'string' || body.detail === undefined) return 'not {error, detail}';
  return null;
}

describe('fuzzing /v1 from its OpenAPI document', () => {
  it('answers every hostile request below 500, in Polar’s error shapes', async () => {
    const document = (await send(daemon!.url, { label: 'openapi', method: 'GET', path: '/v1/openapi.json' }))
      .json as OpenApiDocument;
    const requests: FuzzRequest[] = [];
    const deletions: FuzzRequest[] = [];
    for (const [template, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        // Deletions last, so the other operations meet the seeded rows while they still exist.
        (method === 'delete' ? deletions : requests).push(...requestsFor(document, template, method, operation));
      }
    }
    await runAll(daemon!.url, requests, tally, checkPolar);
    await runAll(daemon!.url, deletions, tally, checkPolar);
    expect(tally.failures).toEqual([]);
    expect(tally.total).toBe(requests.length + deletions.length);
  }, 300_000);
});
