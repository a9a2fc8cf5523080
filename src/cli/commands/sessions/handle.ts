import { createHash } from 'node:crypto';

/**
 * The daemon lists other sessions by the SHA-256 of their token and accepts that digest for revocation; the
 * current session comes back with its real token, which the CLI replaces by the same digest so that output never
 * shows a usable credential and every row has the same kind of handle.
 */
export function tokenHandle(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
