import { randomBytes, randomFillSync, randomInt } from 'node:crypto';

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

// Ids are made many times per request: one kernel call per 512 ids instead of one per id.
const pool = Buffer.alloc(16 * 512);
let poolOffset = pool.length;
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/**
 * Time-ordered UUID (RFC 9562 version 7) for rows inserted in bulk. Ids made in the same millisecond by this
 * process carry an increasing 18-bit counter (RFC 9562 method 1), so rows written together in one transaction
 * (an event and the `state_changed` that follows it) keep their order when read back by id.
 */
export function uuidv7(at: number = Date.now()): string {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const random = poolOffset;
  poolOffset += 16;
  sequence = at === lastMs ? (sequence + 1) & 0x3ffff : 0;
  lastMs = at;
  // 48 bits of milliseconds: the high 16 and low 32 fit plain numbers.
  const high = Math.floor(at / 2 ** 32);
  const low = at >>> 0;
  const h = (byte: number) => HEX[byte & 0xff]!;
  return (
    h(high >>> 8) +
    h(high) +
    h(low >>> 24) +
    h(low >>> 16) +
    '-' +
    h(low >>> 8) +
    h(low) +
    '-' +
    h(0x70 | ((sequence >> 14) & 0x0f)) +
    h(sequence >> 6) +
    '-' +
    h(0x80 | (sequence & 0x3f)) +
    h(pool[random + 9]!) +
    '-' +
    h(pool[random + 10]!) +
    h(pool[random + 11]!) +
    h(pool[random + 12]!) +
    h(pool[random + 13]!) +
    h(pool[random + 14]!) +
    h(pool[random + 15]!)
  );
}

export function randomDigitsAndLowercase(length: number): string {
  return randomAlphanumeric(length, 'abcdefghijklmnopqrstuvwxyz0123456789');
}

export { randomInt };
