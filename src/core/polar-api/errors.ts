import { DomainError } from '../kernel/errors.js';

/**
 * Errors of the /v1 (Polar-compatible) API. The code is Polar's exception class name, which its SDK turns into a
 * typed error (`ResourceNotFound`…); the daemon renders them as `{error, detail}`.
 */

export interface FieldIssue {
  loc: Array<string | number>;
  msg: string;
  type: string;
  input?: unknown;
}

export function resourceNotFound(detail = 'Not found'): DomainError {
  return new DomainError(404, 'ResourceNotFound', detail);
}

export function notPermitted(detail = "You don't have the permission to do this."): DomainError {
  return new DomainError(403, 'NotPermitted', detail);
}

export function unauthorized(detail = 'Unauthorized'): DomainError {
  return new DomainError(401, 'Unauthorized', detail);
}

export function badRequest(detail: string): DomainError {
  return new DomainError(400, 'BadRequest', detail);
}

export function resourceAlreadyExists(detail: string): DomainError {
  return new DomainError(409, 'ResourceAlreadyExists', detail);
}

/** A 422 in FastAPI's shape; also how Polar reports a business rule about one field. */
export function validationError(issues: FieldIssue[]): DomainError {
  return new DomainError(422, 'RequestValidationError', 'Request validation failed', { details: issues });
}

export function fieldError(loc: Array<string | number>, msg: string, type = 'value_error'): DomainError {
  return validationError([{ loc, msg, type }]);
}
