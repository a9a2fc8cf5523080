import type { z } from 'zod';
import { DomainError } from '../../../core/kernel/errors.js';
import { nulPath } from '../../../core/kernel/text.js';

/**
 * Parses request input with a zod schema. Failures are Better Auth's VALIDATION_ERROR:
 * `[body.email] Invalid email address`, several issues joined by "; ". The /api/auth route declarations validate
 * with it, and so does the operator API, which speaks the same error shape.
 */
export function validateInput<S extends z.ZodType>(schema: S, input: unknown, where: 'body' | 'query'): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const message = result.error.issues
    .map((issue) => {
      const path = issue.path.map((part) => String(part)).join('.');
      return `[${path ? `${where}.${path}` : where}] ${issue.message}`;
    })
    .join('; ');
  throw new DomainError(400, 'VALIDATION_ERROR', message);
}

/**
 * One rule for all /api/auth and operator input, whatever the route's schema: a NUL character in any string or key
 * is a 400 VALIDATION_ERROR naming the field. PostgreSQL text cannot hold NUL while SQLite can, so without this the
 * same request was stored on one database and a 500 on the other.
 */
export function refuseNul(inputs: { path?: unknown; body?: unknown; query?: unknown }): void {
  for (const where of ['path', 'body', 'query'] as const) {
    const found = nulPath(inputs[where]);
    if (!found) continue;
    const field = [where, ...found].map((part) => String(part).replaceAll('\u0000', '\\0')).join('.');
    throw new DomainError(400, 'VALIDATION_ERROR', `[${field}] String must not contain NUL characters`);
  }
}
