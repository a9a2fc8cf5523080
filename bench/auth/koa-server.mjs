// The baseline: a bare Koa app (one middleware, no router, no database) answering GET /api/auth/get-session with a
// constant JSON object shaped and sized like a real get-session response. Env: KOA_PORT.
import { createServer } from 'node:http';
import Koa from 'koa';

const SESSION = {
  session: {
    expiresAt: '2026-11-28T12:00:00.000Z',
    token: 'kW3gQAWnxM6UISMYaCOAIcZTk94DsFVx',
    createdAt: '2026-11-21T12:00:00.000Z',
    updatedAt: '2026-11-21T12:00:00.000Z',
    ipAddress: '127.0.0.1',
    userAgent: '',
    userId: 'Tj54bXcJ1nq0yDcGgVuuXl8Tt4rK2QaP',
    id: 'XfMUd2pWm0Y0g8RrbXnW1Qhk6pAbEo3L',
  },
  user: {
    name: 'Bench User',
    email: 'bench@example.com',
    emailVerified: false,
    image: null,
    createdAt: '2026-11-21T12:00:00.000Z',
    updatedAt: '2026-11-21T12:00:00.000Z',
    id: 'Tj54bXcJ1nq0yDcGgVuuXl8Tt4rK2QaP',
  },
};

const app = new Koa();
app.use((ctx) => {
  if (ctx.method === 'GET' && ctx.path === '/api/auth/get-session') {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = SESSION;
  } else if (ctx.method === 'GET' && ctx.path === '/api/auth/ok') {
    ctx.body = { ok: true };
  } else {
    ctx.status = 404;
  }
});

const port = Number(process.env.KOA_PORT);
const handle = app.callback();
// Koa's callback answers errors itself (ctx.onerror); Node ignores its promise.
const server = createServer((req, res) => void handle(req, res));
server.keepAliveTimeout = 65_000;
await new Promise((resolve, reject) => {
  server.once('error', reject);
  server.listen(port, '127.0.0.1', resolve);
});
process.stdout.write(`koa listening on http://127.0.0.1:${port}\n`);
process.send?.({ type: 'ready', url: `http://127.0.0.1:${port}` });

const stop = () => {
  server.close();
  server.closeAllConnections();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.on('disconnect', stop);
