import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Standard Webhooks signing. A `whsec_` secret means two different keys to the two verifiers we promise to satisfy:
 * the `standardwebhooks` package strips the prefix and base64-decodes the rest, while Polar's `validateEvent` keys
 * the HMAC with the UTF-8 bytes of the whole string. We sign with both keys, space-separated in one header (the spec
 * allows several signatures), so either verifier finds its own.
 */

export const SECRET_PREFIX = 'whsec_';
export const TIMESTAMP_TOLERANCE_SECONDS = 300;

/** 33 random bytes: standard base64 without padding, which both decoders read. */
export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(33).toString('base64')}`;
}

// Every delivery signs with its endpoint's keys: decode each secret once, not once per delivery.
const keysBySecret = new Map<string, Buffer[]>();
const MAX_CACHED_SECRETS = 1024;

/** The HMAC keys a secret stands for: its UTF-8 bytes (Polar), and its base64 body after `whsec_` (Standard Webhooks). */
export function signingKeys(secret: string): Buffer[] {
  const cached = keysBySecret.get(secret);
  if (cached) return cached;
  const keys = decodeKeys(secret);
  if (keysBySecret.size >= MAX_CACHED_SECRETS) keysBySecret.clear();
  keysBySecret.set(secret, keys);
  return keys;
}

function decodeKeys(secret: string): Buffer[] {
  const keys = [Buffer.from(secret, 'utf8')];
  if (secret.startsWith(SECRET_PREFIX)) {
    const body = secret.slice(SECRET_PREFIX.length);
    const decoded = Buffer.from(body, 'base64');
    // Node's decoder skips bad characters silently; only a body that round-trips is the key the spec means.
    if (decoded.length > 0 && decoded.toString('base64').replace(/=+$/, '') === body.replace(/=+$/, ''))
      keys.push(decoded);
  }
  return keys;
}

export function sign(key: Buffer, id: string, timestamp: number, body: string): string {
  return createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64');
}

/** The `webhook-signature` header for every key of every secret still in force (the old one during rotation). */
export function signatureHeader(secrets: string[], id: string, timestamp: number, body: string): string {
  return secrets
    .flatMap((secret) => signingKeys(secret).map((key) => `v1,${sign(key, id, timestamp, body)}`))
    .join(' ');
}

export type Verification = { ok: true } | { ok: false; message: string };

/**
 * Checks a received delivery as the `standardwebhooks` package does, with its messages, accepting either key a
 * `whsec_` secret stands for (as Polar's SDK 1.0 does). `now` is in unix seconds.
 */
export function verifyDelivery(
  headers: Record<string, string | undefined>,
  body: string,
  secret: string,
  now: number,
): Verification {
  const lower = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  const id = lower['webhook-id'];
  const timestampHeader = lower['webhook-timestamp'];
  const signatures = lower['webhook-signature'];
  if (!id || !timestampHeader || !signatures) return { ok: false, message: 'Missing required headers' };
  const timestamp = Number.parseInt(timestampHeader, 10);
  if (Number.isNaN(timestamp)) return { ok: false, message: 'Invalid Signature Headers' };
  if (now - timestamp > TIMESTAMP_TOLERANCE_SECONDS) return { ok: false, message: 'Message timestamp too old' };
  if (timestamp > now + TIMESTAMP_TOLERANCE_SECONDS) return { ok: false, message: 'Message timestamp too new' };
  const expected = signingKeys(secret).map((key) => Buffer.from(sign(key, id, timestamp, body)));
  for (const entry of signatures.split(' ')) {
    const [version, signature] = entry.split(',', 2);
    if (version !== 'v1' || !signature) continue;
    const given = Buffer.from(signature);
    if (expected.some((candidate) => candidate.length === given.length && timingSafeEqual(candidate, given)))
      return { ok: true };
  }
  return { ok: false, message: 'No matching signature found' };
}
