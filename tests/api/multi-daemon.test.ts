import { describe, expect, it } from 'vitest';
import { migrations } from '../../migrations/index.js';
import { DatabaseLockedError } from '../../src/core/database/index.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { createTestDatabase, testDialect } from '../helpers/database.js';
import { TestClient, signUpUser } from '../helpers/http.js';
import { eventually } from '../helpers/eventually.js';

describe('several daemons, one database', () => {
  // Each case runs only on its dialect and is reported as skipped on the other.
  it.runIf(testDialect === 'postgres')(
    'PostgreSQL: daemons starting together migrate once and share sessions',
    async () => {
      const database = await createTestDatabase();
      const daemons = await Promise.all([0, 1, 2].map(() => startTestDaemon({ databaseUrl: database.url })));
      try {
        const [a, b, c] = daemons as [(typeof daemons)[0], (typeof daemons)[0], (typeof daemons)[0]];
        const applied = await a.core.db('knex_migrations').count({ n: '*' });
        // Each migration recorded once, though three daemons ran them.
        expect(Number(applied[0]!.n)).toBe(migrations.length);
        const { token, user } = await signUpUser(new TestClient(a.url, { origin: a.url }));
        const viaB = await new TestClient(b.url).get('/api/auth/get-session', {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(viaB.json.user.id).toBe(user.id);
        // A caches the session; a profile change made through B reaches it through the invalidation bus.
        const bearer = { headers: { authorization: `Bearer ${token}` } };
        expect((await new TestClient(a.url).get('/api/auth/get-session', bearer)).json.user.name).toBe('Test User');
        await new TestClient(b.url).post('/api/auth/update-user', { name: 'Renamed on B' }, bearer);
        expect(
          await eventually(
            async () => (await new TestClient(a.url).get('/api/auth/get-session', bearer)).json?.user?.name,
            'Renamed on B',
          ),
        ).toBe('Renamed on B');
        await new TestClient(c.url).post('/api/auth/sign-out', undefined, bearer);
        expect(
          await eventually(async () => (await new TestClient(a.url).get('/api/auth/get-session', bearer)).text, 'null'),
        ).toBe('null');
        expect((await new TestClient(b.url).get('/api/auth/get-session', bearer)).text).toBe('null');
      } finally {
        await Promise.all(daemons.map((daemon) => daemon.close()));
        await database.drop();
      }
    },
  );

  it.runIf(testDialect === 'sqlite')(
    'SQLite: a second daemon on the same file is refused with a clear message',
    async () => {
      const first = await startTestDaemon();
      try {
        const error = await startTestDaemon({ databaseUrl: first.database.url }).then(
          async (second) => {
            await second.close();
            return null;
          },
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(DatabaseLockedError);
        expect((error as Error).message).toMatch(/another Till daemon is already using .*till\.db/);
        // The first daemon is unaffected.
        expect((await new TestClient(first.url).get('/api/auth/ok')).json).toEqual({ ok: true });
      } finally {
        await first.stop();
      }
    },
  );
});
