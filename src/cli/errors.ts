/**
 * Exit codes follow gh, so scripts can tell "try again" from "sign in first" from "you called me wrong":
 * 0 ok, 1 failure, 2 usage, 4 not signed in. (Commander's own parse errors are mapped to 2 in index.ts.)
 */
export const EXIT = { ok: 0, failure: 1, usage: 2, notSignedIn: 4 } as const;

/** An error the CLI expects and explains in one line; index.ts prints the message and exits with the code. */
export class CliError extends Error {
  /** The machine-readable code of the error in --json mode. */
  errorCode = 'failed';

  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export class UsageError extends CliError {
  override errorCode = 'usage';

  constructor(message: string) {
    super(message, EXIT.usage);
    this.name = 'UsageError';
  }
}

export class NotSignedInError extends CliError {
  override errorCode = 'not_signed_in';

  /**
   * `url` is the daemon the missing session was for: before saying "sign in", index.ts checks that daemon answers
   * at all, since no sign-in helps against a daemon that is not there.
   */
  constructor(
    message = 'not signed in; run `till login` first',
    readonly url?: string,
  ) {
    super(message, EXIT.notSignedIn);
    this.name = 'NotSignedInError';
  }
}

export class UnreachableError extends CliError {
  override errorCode = 'unreachable';

  constructor(url: string, reason: string) {
    super(`cannot reach the Till daemon at ${url}: ${reason}`, EXIT.failure);
    this.name = 'UnreachableError';
  }
}

/** The daemon answered with an error; `code` is Better Auth's machine-readable code when it sent one. */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    readonly serverMessage: string,
    exitCode: number,
    /** The answer's `detail` as sent (a /v1 422 lists its issues there), for --json errors. */
    readonly detail: unknown = null,
  ) {
    super(code ? `${serverMessage || `HTTP ${status}`} (${code})` : serverMessage || `HTTP ${status}`, exitCode);
    this.name = 'ApiError';
  }
}

export interface ErrorJson {
  error: { code: string; message: string; status: number | null; detail: unknown };
}

/** An error as --json prints it: the daemon's code, status and detail when it answered, the CLI's own otherwise. */
export function errorJson(error: CliError): ErrorJson {
  if (error instanceof ApiError) {
    return {
      error: {
        code: error.code ?? `http_${error.status}`,
        message: error.serverMessage || `HTTP ${error.status}`,
        status: error.status,
        detail: error.detail ?? null,
      },
    };
  }
  return { error: { code: error.errorCode, message: error.message, status: null, detail: null } };
}
