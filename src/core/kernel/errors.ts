/**
 * The one error type services throw. Routes never build error bodies themselves: the daemon's error
 * middleware renders a DomainError in the wire shape of the API it was raised under.
 */
export class DomainError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  readonly details: unknown;
  /** Extra response headers (e.g. X-Retry-After on 429). */
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: string | undefined,
    message: string,
    options: { details?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'DomainError';
    this.status = status;
    this.code = code;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

/** A route or feature that is deliberately not reachable over HTTP: answered 404 with an empty body. */
export class NotFoundError extends DomainError {
  constructor() {
    super(404, undefined, '');
    this.name = 'NotFoundError';
  }
}

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}
