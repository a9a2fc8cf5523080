import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function hmacSha256Base64(key: string | Buffer, value: string): string {
  return createHmac('sha256', key).update(value).digest('base64');
}

export function hmacSha256Base64Url(key: string | Buffer, value: string): string {
  return createHmac('sha256', key).update(value).digest('base64url');
}

/** Compares two strings in time independent of where they differ. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  if (left.length !== right.length) return false;
  return timingSafeEqual(left, right);
}

/** Derives a purpose-bound key from TILL_SECRET so that one leaked derived key does not expose the others. */
export function deriveKey(secret: string, purpose: string, length = 32): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'till', purpose, length));
}

/**
 * The admin API's bearer token. It is derived from TILL_SECRET, so whoever can read the daemon's secret (the
 * operator, on the daemon's machine or container) can administer it, and nobody else.
 */
export function adminToken(secret: string): string {
  return `till_admin_${deriveKey(secret, 'admin-api').toString('base64url')}`;
}
