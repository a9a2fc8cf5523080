import { createHash } from 'node:crypto';
import { randomAlphanumeric } from '../kernel/ids.js';
import { API_KEY_RULES } from './schemas.js';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_SHAPE = /^[A-Za-z0-9_-]+$/;

/** Better Auth's key: 64 random letters (~365 bits) after the optional prefix. */
export function newApiKey(prefix?: string): string {
  return `${prefix ?? ''}${randomAlphanumeric(API_KEY_RULES.keyLength, LETTERS)}`;
}

/**
 * base64url without padding of SHA-256, as Better Auth stores it. A fast hash is enough: the key is random and
 * long, so there is nothing to guess, and it keeps a key check as cheap as a session check (no bcrypt).
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('base64url');
}

/**
 * Whether a bearer value is an API key rather than a session token: keys are at least 64 characters of the
 * prefix alphabet, session tokens 32 alphanumerics, and signed cookie values carry a dot or a percent sign.
 */
export function looksLikeApiKey(value: string): boolean {
  return value.length >= API_KEY_RULES.keyLength && KEY_SHAPE.test(value);
}
