// The baseline: a bare Koa app that reads and parses an ingestion batch and answers as Till would, with no
// validation and no database. Env: KOA_PORT.
import { createServer } from 'node:http';
import Koa from 'koa';

const app = new Koa();
app.use(async (ctx) => {
  if (ctx.method === 'GET' && ctx.path === '/api/auth/ok') {
    ctx.body = { ok: true };
    return;
  }
  if (ctx.method !== 'POST' || ctx.path !== '/v1/events/ingest') {
    ctx.status = 404;
    return;
  }
  const chunks = [];
  for await (const chunk of ctx.req) chunks.push(chunk);
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  ctx.body = { inserted: body.events.length, duplicates: 0 };
});

const port = Number(process.env.KOA_PORT);
const handle = app.callback();
// Koa's callback answers errors itself (ctx.onerror); Node ignores its promise.
const server = createServer((req, res) => void handle(req, res));
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`koa listening on ${port}\n`);
  process.send?.({ type: 'ready' });
});
const stop = () => {
  server.close();
  server.closeAllConnections();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.on('disconnect', stop);
