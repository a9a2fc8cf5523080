import { SignJWT, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { UserWire } from '../auth/schemas.js';
import type { Clock } from '../kernel/clock.js';
import type { JwtAlgorithm, TillConfig } from '../config/index.js';
import { transaction, type Db } from '../database/index.js';
import { newAuthId } from '../kernel/ids.js';
import { SecretBoxError, type SecretBox } from '../kernel/secret-box.js';
import { jwksRepository, type JwkRecord } from './repository.js';
import type { JwksResponse, PublicJwk } from './schemas.js';

const CURVES: Record<JwtAlgorithm, string | null> = { EdDSA: 'Ed25519', ES256: 'P-256', RS256: null, PS256: null };
const PUBLIC_MEMBERS = ['kty', 'crv', 'x', 'y', 'n', 'e'] as const;

interface SigningKey {
  id: string;
  alg: JwtAlgorithm;
  key: Awaited<ReturnType<typeof importJWK>>;
  expiresAt: Date | null;
}

/** Binds each sealed private key to its row, so a ciphertext copied into another row does not open there. */
function sealContext(id: string): string {
  return `jwks.private_key:${id}`;
}

/** A token is reused for this long after it was signed (it then has at least 14 of its 15 minutes left). */
const TOKEN_REUSE_SECONDS = 60;
const RECENT_TOKENS_MAX = 10_000;
export type JwtService = ReturnType<typeof createJwtService>;

/**
 * Signs tokens for /api/auth/token and the set-auth-jwt header, and publishes the public keys.
 *
 * Keys are created lazily and never modified: each gets its expires_at (end of signing) when it is created, and
 * stays published until its last token has expired. The current key is cached, so signing reads the table only
 * when this daemon has no key yet or its key has stopped signing.
 */
export function createJwtService(deps: {
  db: Db;
  clock: Clock;
  config: Pick<TillConfig, 'baseUrl' | 'jwt'>;
  box: SecretBox;
}) {
  const { db, clock, box } = deps;
  const { baseUrl, jwt: config } = deps.config;
  const graceMs = config.expiresIn * 1000;

  let current: SigningKey | null = null;
  // Concurrent first uses in this process share one lookup, so one daemon never creates two keys.
  let resolving: Promise<SigningKey> | null = null;

  const canSign = (key: { expiresAt: Date | null }, now: Date) =>
    key.expiresAt === null || now.getTime() < key.expiresAt.getTime();

  async function openKey(record: JwkRecord): Promise<SigningKey> {
    const jwk = JSON.parse(box.open(record.sealedPrivateKey, sealContext(record.id))) as JWK;
    return { id: record.id, alg: record.alg, key: await importJWK(jwk, record.alg), expiresAt: record.expiresAt };
  }

  async function generate(): Promise<Omit<JwkRecord, 'createdAt' | 'expiresAt'>> {
    const alg = config.alg;
    const crv = CURVES[alg];
    const pair = await generateKeyPair(alg, {
      extractable: true,
      ...(crv ? { crv } : { modulusLength: config.rsaBits }),
    });
    const id = newAuthId();
    const privateJwk = await exportJWK(pair.privateKey);
    return {
      id,
      publicKey: { ...(await exportJWK(pair.publicKey)) },
      sealedPrivateKey: box.seal(JSON.stringify(privateJwk), sealContext(id)),
      alg,
      crv,
    };
  }

  /**
   * Finds the key to sign with, creating it when there is none. Several daemons on one PostgreSQL may get here
   * at once: the key pair is generated outside the transaction (RSA generation is slow), then check-and-insert
   * runs under an advisory lock, and whoever comes second adopts the first one's key and drops its own.
   */
  async function resolveSigningKey(): Promise<SigningKey> {
    const found = await jwksRepository(db).findSigning(config.alg, clock.now());
    // A key sealed under an earlier TILL_SECRET cannot sign any more. It is replaced rather than left to fail
    // every get-session until its expiry; it stays published, since the tokens it signed were genuine.
    let unusableId: string | null = null;
    if (found) {
      try {
        return await openKey(found);
      } catch (error) {
        if (!(error instanceof SecretBoxError)) throw error;
        unusableId = found.id;
      }
    }
    const candidate = await generate();
    const chosen = await transaction(db, async (trx) => {
      const repo = jwksRepository(trx);
      await repo.lockKeyCreation();
      const now = clock.now();
      const winner = await repo.findSigning(config.alg, now);
      if (winner && winner.id !== unusableId) return winner;
      await repo.deleteRetiredBefore(new Date(now.getTime() - graceMs));
      const record: JwkRecord = {
        ...candidate,
        createdAt: now,
        expiresAt: config.rotationInterval > 0 ? new Date(now.getTime() + config.rotationInterval * 1000) : null,
      };
      await repo.insert(record);
      return record;
    });
    return openKey(chosen);
  }

  const recentTokens = new Map<string, { iat: number; token: string }>();

  async function signingKey(): Promise<SigningKey> {
    if (current && canSign(current, clock.now())) return current;
    resolving ??= resolveSigningKey()
      .then((key) => (current = key))
      .finally(() => {
        resolving = null;
      });
    return resolving;
  }

  return {
    /** A token for this user: Better Auth's payload (the user object) with sub, iat, exp, iss and aud. */
    async sign(user: UserWire): Promise<string> {
      const key = await signingKey();
      const iat = Math.floor(clock.now().getTime() / 1000);
      // get-session hands out a token on every call; one signed moments ago for the same user data and key is as
      // good as a new one, and signing is most of that route's cost otherwise.
      const memoKey = `${key.id}|${JSON.stringify(user)}`;
      const memo = recentTokens.get(memoKey);
      if (memo && iat - memo.iat >= 0 && iat - memo.iat < TOKEN_REUSE_SECONDS) return memo.token;
      // Claims in Better Auth's order, so decoded tokens read the same side by side.
      const token = await new SignJWT({ iat, ...user, sub: user.id })
        .setProtectedHeader({ alg: key.alg, kid: key.id })
        .setExpirationTime(iat + config.expiresIn)
        .setIssuer(baseUrl)
        .setAudience(baseUrl)
        .sign(key.key);
      if (recentTokens.size >= RECENT_TOKENS_MAX) recentTokens.clear();
      recentTokens.set(memoKey, { iat, token });
      return token;
    },

    /**
     * Every key that signs now, and every retired key whose tokens may still be alive. Read from the table each
     * time (verifiers cache it; this is no hot path): another daemon may have created a key this one never saw.
     */
    async jwks(): Promise<JwksResponse> {
      // Like Better Auth, never answer an empty set: a verifier may fetch the keys before the first token exists.
      await signingKey();
      const records = await jwksRepository(db).listPublished(new Date(clock.now().getTime() - graceMs));
      return { keys: records.map(publish) };
    },
  };
}

/** Better Auth's member order: alg, crv, the key's own members, kid. */
function publish(record: JwkRecord): PublicJwk {
  const jwk: Record<string, unknown> = { alg: record.alg };
  if (record.crv) jwk.crv = record.crv;
  // Only public members leave the table, whatever else a row might hold.
  for (const member of PUBLIC_MEMBERS)
    if (record.publicKey[member] !== undefined) jwk[member] = record.publicKey[member];
  jwk.kid = record.id;
  return jwk as PublicJwk;
}
