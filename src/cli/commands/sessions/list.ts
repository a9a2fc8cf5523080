import type { SessionWire } from '../../../core/auth/schemas.js';
import type { Invocation } from '../../action.js';
import { bearer, call, resolveTarget } from '../../context.js';
import { ApiError, EXIT } from '../../errors.js';
import { printJson, printTable } from '../../output.js';
import { tokenHandle } from './handle.js';

export async function run({ opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const target = resolveTarget(globals);
  const token = bearer(target);
  const sessions = await call<SessionWire[]>(target, 'GET', '/api/auth/list-sessions').catch((error: unknown) => {
    // Listing sessions is a sensitive read that needs a recent sign-in; say how to get one.
    if (error instanceof ApiError && error.code === 'SESSION_NOT_FRESH') {
      throw new ApiError(
        error.status,
        error.code,
        `${error.serverMessage}: sign in again with \`till login\` to list sessions`,
        EXIT.failure,
      );
    }
    throw error;
  });
  const rows = sessions.map((session) => {
    const current = session.token === token;
    return { ...session, token: current ? tokenHandle(token) : session.token, current };
  });
  if (opts.json) {
    printJson(rows);
    return;
  }
  printTable(
    ['TOKEN', 'CURRENT', 'CREATED', 'EXPIRES', 'IP', 'USER AGENT'],
    rows.map((row) => [row.token, row.current ? '*' : '', row.createdAt, row.expiresAt, row.ipAddress, row.userAgent]),
  );
}
