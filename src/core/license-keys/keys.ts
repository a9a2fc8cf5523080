import { randomUUID } from 'node:crypto';
import type { Db } from '../database/index.js';
import { sha256Hex } from '../kernel/crypto.js';
import type { SecretBox } from '../kernel/secret-box.js';
import type { LicenseKey } from './repository.js';
import { licenseKeysRepository } from './repository.js';

/** What a license_keys benefit says about the keys it hands out (its properties). */
export interface KeyTerms {
  prefix: string | null;
  expires: { ttl: number; timeframe: 'year' | 'month' | 'day' } | null;
  activations: { limit: number; enable_customer_admin: boolean } | null;
  limit_usage: number | null;
}

/** Polar's key: an upper-case UUID v4 behind the benefit's prefix. */
export function generateKey(prefix: string | null): string {
  const body = randomUUID().toUpperCase();
  return prefix ? `${prefix}-${body}` : body;
}

/** Polar's display_key: the last six characters, the rest hidden. */
export function displayKeyOf(key: string): string {
  return `****-${key.slice(-6)}`;
}

export function keyDigest(key: string): string {
  return sha256Hex(key);
}

function sealContext(id: string): string {
  return `license_keys.key:${id}`;
}

export function openKey(box: SecretBox, key: LicenseKey): string {
  return box.open(key.keySealed, sealContext(key.id));
}

/** `at` moved forward by the benefit's ttl (calendar months and years, in UTC). */
export function expiryFrom(at: Date, expires: KeyTerms['expires']): Date | null {
  if (!expires) return null;
  const date = new Date(at.getTime());
  if (expires.timeframe === 'day') date.setUTCDate(date.getUTCDate() + expires.ttl);
  if (expires.timeframe === 'month') date.setUTCMonth(date.getUTCMonth() + expires.ttl);
  if (expires.timeframe === 'year') date.setUTCFullYear(date.getUTCFullYear() + expires.ttl);
  return date;
}

/** A new key for a grant, written in the grant's transaction; answers it with the key in clear. */
export async function issueLicenseKey(
  trx: Db,
  box: SecretBox,
  input: { organizationId: string; customerId: string; benefitId: string; terms: KeyTerms; at: Date },
): Promise<{ key: LicenseKey; plain: string }> {
  const id = randomUUID();
  const plain = generateKey(input.terms.prefix);
  const key: LicenseKey = {
    id,
    organizationId: input.organizationId,
    customerId: input.customerId,
    benefitId: input.benefitId,
    keyDigest: keyDigest(plain),
    keySealed: box.seal(plain, sealContext(id)),
    displayKey: displayKeyOf(plain),
    status: 'granted',
    limitActivations: input.terms.activations?.limit ?? null,
    activations: 0,
    usage: 0,
    limitUsage: input.terms.limit_usage,
    validations: 0,
    lastValidatedAt: null,
    expiresAt: expiryFrom(input.at, input.terms.expires),
    createdAt: input.at,
    modifiedAt: null,
  };
  await licenseKeysRepository(trx).insert(key);
  return { key, plain };
}
