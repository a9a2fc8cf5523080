/**
 * Exit codes follow gh, so scripts can tell "try again" from "sign in first" from "you called me wrong":
 * 0 ok, 1 failure, 2 usage, 4 not signed in. (Commander's own parse errors are mapped to 2 in index.ts.)
 */
export const EXIT = { ok: 0, failure: 1, usage: 2, notSignedIn: 4 } as const;

/** An error the CLI expects and explains in one line; index.ts prints the message and exits with the code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT.usage);
    this.name = 'UsageError';
  }
}

export class NotSignedInError extends CliError {
  constructor(message = 'not signed in; run `till login` first') {
    super(message, EXIT.notSignedIn);
    this.name = 'NotSignedInError';
  }
}

/** The daemon answered with an error; `code` is Better Auth's machine-readable code when it sent one. */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    readonly serverMessage: string,
    exitCode: number,
  ) {
    super(code ? `${serverMessage || `HTTP ${status}`} (${code})` : serverMessage || `HTTP ${status}`, exitCode);
    this.name = 'ApiError';
  }
}
