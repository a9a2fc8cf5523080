import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { MINUTE } from '../../src/core/kernel/clock.js';
import { DEFAULT_JWT, DEFAULT_SESSION, type JwtAlgorithm } from '../../src/core/config/index.js';
import { createSecretBox } from '../../src/core/kernel/secret-box.js';
import { TEST_SECRET, startTestDaemon, useTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { createTestDatabase, testDialect } from '../helpers/database.js';
import { TestClient, signUpUser } from '../helpers/http.js';

const daemon = useTestDaemon();
const client = (d: TestDaemon = daemon()) => new TestClient(d.url, { origin: d.url });

/** Verifies the way a resource server would: keys fetched from the daemon's JWKS, at the daemon's (test) time. */
async function verify(d: TestDaemon, token: string) {
  const keys = createRemoteJWKSet(new URL(`${d.url}/api/auth/jwks`));
  return jwtVerify(token, keys, { issuer: d.config.baseUrl, audience: d.config.baseUrl, currentDate: d.clock.now() });
}

async function tokenFor(c: TestClient): Promise<string> {
  const response = await c.get('/api/auth/token');
  expect(response.status).toBe(200);
  return response.json.token as string;
}

const kids = async (d: TestDaemon) =>
  ((await client(d).get('/api/auth/jwks')).json.keys as Array<{ kid: string }>).map((key) => key.kid);
const kidOf = (token: string) => decodeProtectedHeader(token).kid;

describe('GET /api/auth/jwks', () => {
  it('publishes the public Ed25519 key, its kid being the row id, and nothing private', async () => {
    const response = await client().get('/api/auth/jwks');
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      keys: [
        {
          alg: 'EdDSA',
          crv: 'Ed25519',
          x: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
          kty: 'OKP',
          kid: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
        },
      ],
    });
    const rows = await daemon().core.db('jwks').select('id', 'alg', 'crv', 'expires_at');
    expect(rows.map((row) => row.id)).toEqual([response.json.keys[0].kid]);
    expect(rows[0]).toMatchObject({ alg: 'EdDSA', crv: 'Ed25519' });
    expect(response.text).not.toContain('"d"');
  });

  it('keeps the private key sealed with the secret box, bound to its row', async () => {
    const row = await daemon().core.db('jwks').first();
    expect(row.private_key).toMatch(/^v1\./);
    expect(row.private_key).not.toContain('"d":');
    expect(row.private_key).not.toContain(JSON.parse(row.public_key).x);
    const box = createSecretBox(TEST_SECRET);
    const privateJwk = JSON.parse(box.open(row.private_key, `jwks.private_key:${row.id}`));
    expect(privateJwk).toMatchObject({
      kty: 'OKP',
      crv: 'Ed25519',
      x: JSON.parse(row.public_key).x,
      d: expect.any(String),
    });
    expect(() => box.open(row.private_key)).toThrow();
  });
});

describe('GET /api/auth/token', () => {
  it('needs a session: 401 UNAUTHORIZED', async () => {
    const response = await client().get('/api/auth/token');
    expect(response.status).toBe(401);
    expect(response.json).toEqual({ code: 'UNAUTHORIZED', message: 'Unauthorized' });
    const bogus = await client().get('/api/auth/token', { headers: { authorization: 'Bearer nope' } });
    expect(bogus.status).toBe(401);
  });

  it('signs the user object with sub, iat, exp = iat + 15 min, iss = aud = base URL; verifies against the JWKS', async () => {
    const c = client();
    const { user } = await signUpUser(c);
    const token = await tokenFor(c);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'EdDSA', kid: (await kids(daemon()))[0] });
    const { payload } = await verify(daemon(), token);
    const iat = Math.floor(daemon().clock.now().getTime() / 1000);
    expect(payload).toEqual({ ...user, iat, exp: iat + 900, sub: user.id, iss: daemon().url, aud: daemon().url });
  });

  it('works with Authorization: Bearer, and every token of one daemon uses its cached key', async () => {
    const { token: session } = await signUpUser(client());
    const viaBearer = await new TestClient(daemon().url).get('/api/auth/token', {
      headers: { authorization: `Bearer ${session}` },
    });
    expect(viaBearer.status).toBe(200);
    const tokens = await Promise.all(
      Array.from({ length: 8 }, () =>
        tokenFor(new TestClient(daemon().url, { headers: { authorization: `Bearer ${session}` } })),
      ),
    );
    expect(new Set(tokens.map(kidOf))).toEqual(new Set([kidOf(viaBearer.json.token)]));
    expect(await daemon().core.db('jwks').count({ n: '*' })).toEqual([{ n: 1 }]);
  });
});

describe('set-auth-jwt on get-session', () => {
  it('carries a token for the session user and exposes the header to browsers', async () => {
    const c = client();
    const { user } = await signUpUser(c);
    const response = await c.get('/api/auth/get-session');
    expect(response.json.user.id).toBe(user.id);
    const token = response.headers['set-auth-jwt'] as string;
    expect((await verify(daemon(), token)).payload).toMatchObject({ sub: user.id, email: user.email });
    expect(response.headers['access-control-expose-headers']).toBe('set-auth-jwt');
  });

  it('reuses a token for a minute, and signs a new one when the user changes or the minute is over', async () => {
    const c = client();
    await signUpUser(c);
    const first = (await c.get('/api/auth/get-session')).headers['set-auth-jwt'] as string;
    expect((await c.get('/api/auth/get-session')).headers['set-auth-jwt']).toBe(first);
    await c.post('/api/auth/update-user', { name: 'Renamed' });
    const renamed = (await c.get('/api/auth/get-session')).headers['set-auth-jwt'] as string;
    expect(renamed).not.toBe(first);
    expect((await verify(daemon(), renamed)).payload.name).toBe('Renamed');
    daemon().clock.advance(MINUTE);
    const later = (await c.get('/api/auth/get-session')).headers['set-auth-jwt'] as string;
    expect(later).not.toBe(renamed);
    expect((await verify(daemon(), later)).payload.iat).toBe(Math.floor(daemon().clock.now().getTime() / 1000));
  });

  it('is absent without a session', async () => {
    const response = await client().get('/api/auth/get-session');
    expect(response.text).toBe('null');
    expect(response.headers['set-auth-jwt']).toBeUndefined();
    expect(response.headers['access-control-expose-headers']).toBeUndefined();
    const forged = await client().get('/api/auth/get-session', { headers: { authorization: 'Bearer nope' } });
    expect(forged.headers['set-auth-jwt']).toBeUndefined();
  });

  it('is added to, not replacing, set-auth-token when the session cookie is re-issued', async () => {
    const d = await startTestDaemon({ session: { ...DEFAULT_SESSION, cookieCache: { enabled: true, maxAge: 60 } } });
    try {
      const c = client(d);
      const { user } = await signUpUser(c);
      const fresh = await c.get('/api/auth/get-session', { query: { disableCookieCache: 'true' } });
      expect(fresh.headers['access-control-expose-headers']).toBe('set-auth-token, set-auth-jwt');
      expect((await verify(d, fresh.headers['set-auth-jwt'] as string)).payload.sub).toBe(user.id);
      // Served from the cookie cache, without reading the session table: the token is still there.
      const cached = await c.get('/api/auth/get-session');
      expect(cached.json.user.id).toBe(user.id);
      expect((await verify(d, cached.headers['set-auth-jwt'] as string)).payload.sub).toBe(user.id);
    } finally {
      await d.stop();
    }
  });
});

describe('key rotation', () => {
  it('signs with a new key after the rotation interval and publishes the old one until its tokens have expired', async () => {
    const d = await startTestDaemon({ jwt: { ...DEFAULT_JWT, rotationInterval: 3600 } });
    try {
      const c = client(d);
      await signUpUser(c);
      const first = await tokenFor(c);
      const k1 = kidOf(first);
      d.clock.advance(59 * MINUTE);
      const late = await tokenFor(c);
      expect(kidOf(late)).toBe(k1);

      d.clock.advance(2 * MINUTE);
      const next = await tokenFor(c);
      const k2 = kidOf(next);
      expect(k2).not.toBe(k1);
      expect(kidOf((await c.get('/api/auth/get-session')).headers['set-auth-jwt'] as string)).toBe(k2);
      expect(await kids(d)).toEqual([k2, k1]);
      expect((await verify(d, late)).protectedHeader.kid).toBe(k1);

      // 13 minutes on, the last token of k1 is still alive, so k1 is still published.
      d.clock.advance(12 * MINUTE);
      expect((await verify(d, late)).payload.sub).toBeDefined();
      expect(await kids(d)).toEqual([k2, k1]);

      // Past the end of k1's signing plus one token lifetime, nothing k1 signed is alive: it is withdrawn.
      d.clock.advance(2 * MINUTE);
      expect(await kids(d)).toEqual([k2]);
      await expect(verify(d, late)).rejects.toThrow();
      expect((await verify(d, next)).protectedHeader.kid).toBe(k2);

      // The next rotation deletes k1's row (its private key is no longer needed) and keeps k2 for its grace.
      d.clock.advance(60 * MINUTE);
      const k3 = kidOf(await tokenFor(c));
      expect(await kids(d)).toEqual([k3, k2]);
      expect((await d.core.db('jwks').select('id').orderBy('id')).map((row) => row.id).sort()).toEqual([k2, k3].sort());
    } finally {
      await d.stop();
    }
  });

  it('never rotates with a rotation interval of 0', async () => {
    const d = await startTestDaemon({ jwt: { ...DEFAULT_JWT, rotationInterval: 0 } });
    try {
      const c = client(d);
      await signUpUser(c);
      const k1 = kidOf(await tokenFor(c));
      d.clock.advance(6 * 24 * 60 * MINUTE);
      expect(kidOf(await tokenFor(c))).toBe(k1);
      expect(await d.core.db('jwks').select('expires_at')).toEqual([{ expires_at: null }]);
    } finally {
      await d.stop();
    }
  });
});

describe('a changed TILL_SECRET', () => {
  it('replaces the key it can no longer open, and keeps publishing the old one', async () => {
    const first = await startTestDaemon();
    const c = client(first);
    await signUpUser(c);
    const k1 = kidOf(await tokenFor(c));
    await first.close();
    first.clock.advance(MINUTE);
    const second = await startTestDaemon(
      { databaseUrl: first.database.url, secret: `${TEST_SECRET}-rotated` },
      { clock: first.clock },
    );
    try {
      // Session cookies signed under the old secret are void; a new sign-in is needed anyway.
      const again = client(second);
      const { user } = await signUpUser(again);
      const token = await tokenFor(again);
      expect(kidOf(token)).not.toBe(k1);
      expect((await verify(second, token)).payload.sub).toBe(user.id);
      expect(await kids(second)).toEqual([kidOf(token), k1]);
    } finally {
      await second.close();
      await first.database.drop();
    }
  });
});

describe('other algorithms', () => {
  const cases: Array<{ alg: JwtAlgorithm; rsaBits?: number; kty: string; crv?: string }> = [
    { alg: 'RS256', kty: 'RSA' },
    { alg: 'PS256', rsaBits: 3072, kty: 'RSA' },
    { alg: 'ES256', kty: 'EC', crv: 'P-256' },
  ];
  for (const { alg, rsaBits, kty, crv } of cases) {
    it(`${alg}${rsaBits ? ` (${rsaBits} bits)` : ''}: published and verifiable`, async () => {
      const d = await startTestDaemon({ jwt: { ...DEFAULT_JWT, alg, rsaBits: rsaBits ?? DEFAULT_JWT.rsaBits } });
      try {
        const c = client(d);
        const { user } = await signUpUser(c);
        // The first uses arrive together: they share one key creation.
        const [token, ...more] = await Promise.all([tokenFor(c), tokenFor(c), tokenFor(c)]);
        expect(new Set(more.map(kidOf))).toEqual(new Set([kidOf(token!)]));
        expect(decodeProtectedHeader(token!).alg).toBe(alg);
        expect((await verify(d, token!)).payload.sub).toBe(user.id);
        const [key, ...others] = (await client(d).get('/api/auth/jwks')).json.keys;
        expect(others).toEqual([]);
        expect(key).toMatchObject({ alg, kty, kid: kidOf(token!) });
        expect(key.d).toBeUndefined();
        if (kty === 'RSA') {
          expect(Buffer.from(key.n, 'base64url').length * 8).toBe(rsaBits ?? 2048);
          expect(key.crv).toBeUndefined();
        } else expect(key.crv).toBe(crv);
        expect(await d.core.db('jwks').first('alg', 'crv')).toEqual({ alg, crv: crv ?? null });
      } finally {
        await d.stop();
      }
    });
  }
});

// PostgreSQL only: SQLite allows one daemon per file, so a SQLite run reports this suite as skipped.
describe.runIf(testDialect === 'postgres')('several daemons, one database', () => {
  it('daemons using JWTs for the first time at once end up with one key, and verify each other', async () => {
    const database = await createTestDatabase();
    const daemons = await Promise.all([0, 1, 2].map(() => startTestDaemon({ databaseUrl: database.url })));
    try {
      const { token: session } = await signUpUser(client(daemons[0]));
      const bearer = { headers: { authorization: `Bearer ${session}` } };
      const tokens = await Promise.all(
        daemons.flatMap((d) =>
          [0, 1, 2].map(async () => (await new TestClient(d.url).get('/api/auth/token', bearer)).json.token as string),
        ),
      );
      expect(await daemons[0]!.core.db('jwks').count({ n: '*' })).toEqual([{ n: 1 }]);
      expect(new Set(tokens.map(kidOf)).size).toBe(1);
      const fromA = tokens[0]!;
      const keysOnC = createRemoteJWKSet(new URL(`${daemons[2]!.url}/api/auth/jwks`));
      const { payload } = await jwtVerify(fromA, keysOnC, {
        issuer: daemons[0]!.config.baseUrl,
        currentDate: daemons[2]!.clock.now(),
      });
      expect(payload.iss).toBe(daemons[0]!.url);
    } finally {
      await Promise.all(daemons.map((d) => d.close()));
      await database.drop();
    }
  });
});
