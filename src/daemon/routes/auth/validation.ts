import type { z } from 'zod';
import { DomainError } from '../../../core/kernel/errors.js';

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
