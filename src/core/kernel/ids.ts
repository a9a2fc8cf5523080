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

/**
 * An id's text, written here byte by byte and read out as one string: an ingestion batch makes an id for every event,
 * and joined from twenty pieces, each id was a dozen short-lived strings for the young generation to collect (about a
 * tenth of what ingestion allocated).
 */
const idText = Buffer.from('00000000-0000-0000-0000-000000000000', 'latin1');
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

function writeByte(at: number, byte: number): void {
  idText[at] = HEX_DIGITS[(byte >> 4) & 0x0f]!;
  idText[at + 1] = HEX_DIGITS[byte & 0x0f]!;
}

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
  writeByte(0, high >>> 8);
  writeByte(2, high);
  writeByte(4, low >>> 24);
  writeByte(6, low >>> 16);
  writeByte(9, low >>> 8);
  writeByte(11, low);
  writeByte(14, 0x70 | ((sequence >> 14) & 0x0f));
  writeByte(16, sequence >> 6);
  writeByte(19, 0x80 | (sequence & 0x3f));
  writeByte(21, pool[random + 9]!);
  for (let i = 0; i < 6; i++) writeByte(24 + 2 * i, pool[random + 10 + i]!);
  return idText.toString('latin1', 0, 36);
}

export function randomDigitsAndLowercase(length: number): string {
  return randomAlphanumeric(length, 'abcdefghijklmnopqrstuvwxyz0123456789');
}

export { randomInt };
