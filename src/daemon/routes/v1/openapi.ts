import { z } from 'zod';
import type { OperationSpec } from './operation.js';

type JsonSchema = Record<string, unknown>;
type AnyOperation = OperationSpec<z.ZodType, z.ZodType, z.ZodType>;

const ERROR_RESPONSES: Record<string, { description: string; name: string }> = {
  '401': { description: 'Missing or invalid token', name: 'Unauthorized' },
  '403': { description: 'The token lacks the scope or the member the role', name: 'NotPermitted' },
  '404': { description: 'Not found, or another organization’s resource', name: 'ResourceNotFound' },
};

/**
 * Builds the OpenAPI 3.1 document from the operations the router registered: the same zod schemas validate requests
 * and describe them here, so the document cannot drift from the code. Schemas named with `.meta({id})` become
 * components.
 */
export function buildOpenApi(
  operations: readonly AnyOperation[],
  info: { version: string; serverUrl: string },
): JsonSchema {
  const components: Record<string, JsonSchema> = {
    ValidationError: {
      type: 'object',
      required: ['loc', 'msg', 'type'],
      properties: {
        loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
        msg: { type: 'string' },
        type: { type: 'string' },
      },
    },
    HTTPValidationError: {
      type: 'object',
      properties: { detail: { type: 'array', items: { $ref: '#/components/schemas/ValidationError' } } },
    },
  };
  for (const { name } of Object.values(ERROR_RESPONSES)) {
    components[name] = {
      type: 'object',
      required: ['error', 'detail'],
      properties: { error: { type: 'string', const: name }, detail: { type: 'string' } },
    };
  }

  function schemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const generated = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
    const defs = (generated.$defs ?? {}) as Record<string, JsonSchema>;
    delete generated.$defs;
    delete generated.$schema;
    for (const [id, def] of Object.entries(defs)) {
      const name =
        components[id] && JSON.stringify(components[id]) !== JSON.stringify(relink(def)) && io === 'input'
          ? `${id}Input`
          : id;
      components[name] ??= relink(def);
    }
    return relink(generated);
  }

  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) {
    const path = operation.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const parameters = [
      ...parametersOf(operation.params, 'path', schemaOf),
      ...parametersOf(operation.query, 'query', schemaOf),
    ];
    const status = String(operation.status ?? 200);
    const responses: Record<string, unknown> = {
      [status]: operation.response
        ? {
            description: 'Successful Response',
            content: { 'application/json': { schema: schemaOf(operation.response, 'output') } },
          }
        : { description: operation.responseDescription ?? 'Successful Response' },
    };
    if (operation.body || operation.query || operation.params) {
      responses['422'] = {
        description: 'Validation Error',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/HTTPValidationError' } } },
      };
    }
    if (operation.scopes) {
      for (const [code, { description, name }] of Object.entries(ERROR_RESPONSES)) {
        responses[code] = {
          description,
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } },
        };
      }
    }
    (paths[path] ??= {})[operation.method] = {
      operationId: operation.operationId,
      tags: [operation.tag],
      summary: operation.summary,
      ...(operation.scopes ? { security: [{ bearer: [] }], 'x-scopes': operation.scopes } : { security: [] }),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(operation.body
        ? {
            requestBody: {
              required: true,
              content: { 'application/json': { schema: schemaOf(operation.body, 'input') } },
            },
          }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Till API',
      version: info.version,
      description: 'Polar-compatible merchant API of a self-hosted Till daemon.',
    },
    servers: [{ url: info.serverUrl }],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'An organization access token (till_oat_…), a member’s session token or an API key.',
        },
      },
    },
  };
}

function relink(schema: JsonSchema): JsonSchema {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema;
}

function parametersOf(
  schema: z.ZodType | undefined,
  where: 'path' | 'query',
  schemaOf: (schema: z.ZodType, io: 'input') => JsonSchema,
) {
  if (!schema || !(schema instanceof z.ZodObject)) return [];
  return Object.entries(schema.shape as Record<string, z.ZodType>).map(([name, field]) => ({
    name,
    in: where,
    required: where === 'path' || !field.safeParse(undefined).success,
    schema: schemaOf(field, 'input'),
  }));
}
