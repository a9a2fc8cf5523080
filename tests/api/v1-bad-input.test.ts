import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import type { HttpResponse } from '../helpers/http.js';
import { createMerchant } from '../helpers/v1.js';

// Every /v1 operation, taken from the daemon's own OpenAPI document (built from the routes' schemas), is sent
// input no client should send. Each answer must be a documented 4xx in Polar's shape; none may be a 500.

const daemon = useTestDaemon();

const WRONG_VALUES: unknown[] = [
  null,
  -1,
  1.5,
  true,
  'x'.repeat(5_000),
  [],
  { nested: { deep: 1 } },
  [{ nested: {} }],
  '../../etc/passwd',
];
const WRONG_QUERY_VALUES = ['-1', '0', 'x'.repeat(3_000), 'null', '1e309', '[]'];

type Operation = {
  operationId: string;
  responses?: Record<string, { description?: string }>;
  parameters?: Array<{ name: string; in: string }>;
  requestBody?: { content: Record<string, { schema: { $ref?: string; properties?: Record<string, unknown> } }> };
};

function expectPolarError(response: HttpResponse, label: string): void {
  expect(response.status, `${label}: ${response.text.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
  expect(response.status, `${label}: ${response.text.slice(0, 300)}`).toBeLessThan(500);
  if (response.status === 422) {
    expect(Array.isArray(response.json?.detail), label).toBe(true);
    for (const issue of response.json.detail) expect(Array.isArray(issue.loc), label).toBe(true);
  } else {
    expect(typeof response.json?.error, `${label}: ${response.text.slice(0, 300)}`).toBe('string');
  }
}

function expectNot500(response: HttpResponse, label: string): void {
  expect(response.status, `${label}: ${response.text.slice(0, 300)}`).toBeLessThan(500);
}

describe('/v1 bad input', () => {
  it('answers every operation’s bad input with a documented 4xx, never a 500', async () => {
    const merchant = await createMerchant(daemon());
    const document = (await merchant.api.get('/v1/openapi.json')).json as {
      paths: Record<string, Record<string, Operation>>;
      components: {
        schemas: Record<string, { properties?: Record<string, unknown>; oneOf?: Array<{ $ref: string }> }>;
      };
    };
    const propertiesOf = (schema: { $ref?: string; properties?: Record<string, unknown> } | undefined): string[] => {
      if (!schema) return [];
      if (schema.properties) return Object.keys(schema.properties);
      const name = schema.$ref?.split('/').pop();
      const component = name ? document.components.schemas[name] : undefined;
      if (component?.properties) return Object.keys(component.properties);
      return (component?.oneOf ?? []).flatMap((variant) => propertiesOf(variant));
    };

    let checked = 0;
    for (const [template, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        // A live event stream answers a valid request by staying open; its bad input is tested with the stream.
        if (
          Object.values(operation.responses ?? {}).some((response) =>
            response.description?.startsWith('text/event-stream'),
          )
        )
          continue;
        const label = `${method.toUpperCase()} ${template}`;
        const path = template.replace(/\{[^}]+\}/g, randomUUID());
        // A foreign or malformed id is never a 500.
        if (template.includes('{')) {
          expectNot500(
            await merchant.api.call(method.toUpperCase(), template.replace(/\{[^}]+\}/g, 'x'.repeat(80))),
            `${label} long id`,
          );
          expectNot500(
            await merchant.api.call(method.toUpperCase(), template.replace(/\{[^}]+\}/g, '%00')),
            `${label} NUL id`,
          );
        }
        for (const parameter of operation.parameters ?? []) {
          if (parameter.in !== 'query') continue;
          const responses = await Promise.all(
            WRONG_QUERY_VALUES.map((value) =>
              merchant.api.call(method.toUpperCase(), path, { query: { [parameter.name]: value } }),
            ),
          );
          responses.forEach((response, index) =>
            expectNot500(response, `${label} ?${parameter.name}=${WRONG_QUERY_VALUES[index]!.slice(0, 20)}`),
          );
        }
        if (!operation.requestBody) continue;
        const schema = operation.requestBody.content['application/json']?.schema;
        for (const body of [[], 'text', 42, null]) {
          expectPolarError(
            await merchant.api.call(method.toUpperCase(), path, {
              rawBody: JSON.stringify(body),
              headers: { 'content-type': 'application/json' },
            }),
            `${label} body ${JSON.stringify(body)}`,
          );
        }
        expectPolarError(
          await merchant.api.call(method.toUpperCase(), path, {
            rawBody: '{"a":',
            headers: { 'content-type': 'application/json' },
          }),
          `${label} malformed JSON`,
        );
        for (const property of propertiesOf(schema)) {
          // An empty batch is a whole, valid ingest (Polar's EventsIngest sets no minimum): it inserts nothing.
          const wrong = WRONG_VALUES.filter(
            (value) =>
              !(path === '/v1/events/ingest' && property === 'events' && Array.isArray(value) && !value.length),
          );
          const responses = await Promise.all(
            wrong.map((value) => merchant.api.call(method.toUpperCase(), path, { body: { [property]: value } })),
          );
          responses.forEach((response, index) =>
            expectPolarError(response, `${label} ${property}=${JSON.stringify(wrong[index]).slice(0, 30)}`),
          );
          checked += responses.length;
        }
      }
    }
    // Guards against the loop silently checking nothing if the document's shape changes.
    expect(checked).toBeGreaterThan(10);
  }, 180_000);
});
