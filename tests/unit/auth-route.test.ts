import Router from '@koa/router';
import Koa from 'koa';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DomainError } from '../../src/core/kernel/errors.js';
import { createLogger } from '../../src/daemon/logger.js';
import { errorMiddleware } from '../../src/daemon/middleware/errors.js';
import type { AuthRouteDeps } from '../../src/daemon/routes/auth/deps.js';
import { AuthApi } from '../../src/daemon/routes/auth/route.js';

// The declaration's order (precondition, body, query, session) is what keeps Better Auth's error precedence; the
// API tests cover each real route, these pin the rules themselves.
const actor = { user: { id: 'u1' }, session: { id: 's1', fresh: true }, token: 't', source: 'bearer' };
const deps = {
  sessionAuth: {
    presented: () => ({ token: null, source: null, dontRemember: false }),
    optionalActor: async (ctx: Koa.Context) => {
      const who = ctx.get('x-test-session');
      if (!who) return null;
      return { ...actor, session: { ...actor.session, fresh: who === 'fresh' } };
    },
  },
  core: { sessions: { isFresh: (session: { fresh: boolean }) => session.fresh } },
} as unknown as AuthRouteDeps;

let server: Server;
let base: string;

beforeAll(async () => {
  const app = new Koa();
  const router = new Router();
  router.use(async (ctx, next) => {
    if (ctx.method === 'POST') ctx.state.body = JSON.parse(ctx.get('x-test-body') || 'null') ?? undefined;
    await next();
  });
  const api = new AuthApi(router, deps);
  const body = z.object({ email: z.email() });
  api.route({ method: 'post', path: '/session', caller: 'session', body }, ({ actor, body }) => ({
    user: actor.user.id,
    email: body.email,
  }));
  api.route(
    { method: 'get', path: '/fresh', caller: 'fresh-session', query: z.object({ id: z.string() }) },
    ({ query }) => ({ id: query.id }),
  );
  api.route(
    { method: 'post', path: '/first', caller: 'session', signedOut: 'empty-401', sessionBeforeInput: true, body },
    () => ({ ok: true }),
  );
  api.route({ method: 'post', path: '/bare', caller: 'session', signedOut: 'bare-401', body }, () => ({ ok: true }));
  api.route({ method: 'post', path: '/optional', caller: 'optional' }, ({ actor }) => ({ signedIn: actor !== null }));
  api.route(
    {
      method: 'post',
      path: ['/off', '/off-alias'],
      caller: 'session',
      body,
      precondition: () => {
        throw new DomainError(418, 'OFF', 'switched off');
      },
    },
    () => ({ ok: true }),
  );
  app.use(errorMiddleware(createLogger('error', () => undefined)));
  app.use(router.routes());
  const handle = app.callback();
  server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function call(method: string, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(base + path, { method, headers });
  const text = await response.text();
  return { status: response.status, text, type: response.headers.get('content-type') };
}

describe('AuthApi.route', () => {
  it('validates the body before it looks for the session', async () => {
    expect(await call('POST', '/session', { 'x-test-body': '{"email":"nope"}' })).toMatchObject({
      status: 400,
      text: JSON.stringify({ message: '[body.email] Invalid email address', code: 'VALIDATION_ERROR' }),
    });
    expect(await call('POST', '/session', { 'x-test-body': '{"email":"a@b.co"}' })).toMatchObject({
      status: 401,
      text: JSON.stringify({ message: 'Unauthorized', code: 'UNAUTHORIZED' }),
    });
    expect(
      await call('POST', '/session', { 'x-test-body': '{"email":"a@b.co"}', 'x-test-session': 'fresh' }),
    ).toMatchObject({ status: 200, text: '{"user":"u1","email":"a@b.co"}' });
  });

  it('refuses a stale session on a fresh-session route, after the query', async () => {
    expect((await call('GET', '/fresh', { 'x-test-session': 'stale' })).status).toBe(400);
    expect(await call('GET', '/fresh?id=1', { 'x-test-session': 'stale' })).toMatchObject({
      status: 403,
      text: JSON.stringify({ message: 'Session is not fresh', code: 'SESSION_NOT_FRESH' }),
    });
    expect(await call('GET', '/fresh?id=1', { 'x-test-session': 'fresh' })).toMatchObject({
      status: 200,
      text: '{"id":"1"}',
    });
  });

  it('answers a missing session in the declared way', async () => {
    expect(await call('POST', '/first', { 'x-test-body': '{"email":"nope"}' })).toMatchObject({
      status: 401,
      text: '',
      type: 'text/plain; charset=utf-8',
    });
    expect(await call('POST', '/bare', { 'x-test-body': '{"email":"a@b.co"}' })).toMatchObject({
      status: 401,
      text: '',
      type: null,
    });
    expect(await call('POST', '/optional')).toMatchObject({ status: 200, text: '{"signedIn":false}' });
  });

  it('runs the precondition first, on every path of the route', async () => {
    for (const path of ['/off', '/off-alias'])
      expect((await call('POST', path, { 'x-test-body': '{"email":"nope"}' })).status).toBe(418);
  });
});
