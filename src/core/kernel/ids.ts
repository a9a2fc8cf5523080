import { randomBytes, randomInt } from 'node:crypto';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * Random alphanumeric string drawn without modulo bias. 32 characters carry ~190 bits, the shape Better Auth
 * uses for ids and session tokens.
 */
export function randomAlphanumeric(length = 32, alphabet = ALPHANUMERIC): string {
  // 62 * 4 = 248: bytes at or above 248 are rejected so every character is equally likely.
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    const bytes = randomBytes(length * 2);
    for (let i = 0; i < bytes.length && out.length < length; i++) {
      const byte = bytes[i]!;
      if (byte < limit) out += alphabet[byte % alphabet.length];
    }
  }
  return out;
}

/** Ids of auth rows: 32 random alphanumerics, like Better Auth's generateId(). */
export function newAuthId(): string {
  return randomAlphanumeric(32);
}

let lastMs = -1;
let sequence = 0;

/**
 * Time-ordered UUID (RFC 9562 version 7) for rows inserted in bulk. Ids made in the same millisecond by this
 * process carry an increasing 18-bit counter (RFC 9562 method 1), so rows written together in one transaction
 * (an event and the `state_changed` that follows it) keep their order when read back by id.
 */
export function uuidv7(at: number = Date.now()): string {
  const bytes = randomBytes(16);
  sequence = at === lastMs ? (sequence + 1) & 0x3ffff : 0;
  lastMs = at;
  const ms = BigInt(at);
  for (let i = 0; i < 6; i++) bytes[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = 0x70 | ((sequence >> 14) & 0x0f);
  bytes[7] = (sequence >> 6) & 0xff;
  bytes[8] = 0x80 | (sequence & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function randomDigitsAndLowercase(length: number): string {
  return randomAlphanumeric(length, 'abcdefghijklmnopqrstuvwxyz0123456789');
}

export { randomInt };
