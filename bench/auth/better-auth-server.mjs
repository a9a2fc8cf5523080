// Better Auth (the version installed, 1.7.25) in its minimal e-mail/password configuration on PostgreSQL, served
// by node:http through toNodeHandler. Env: BA_DATABASE_URL, BA_SECRET, BA_PORT.
import { createServer } from 'node:http';
import pg from 'pg';
import { betterAuth } from 'better-auth';
// 1.7.x exports getMigrations from better-auth/db/migration (not better-auth/db).
import { getMigrations } from 'better-auth/db/migration';
import { toNodeHandler } from 'better-auth/node';

const port = Number(process.env.BA_PORT);
const baseURL = `http://127.0.0.1:${port}`;
const options = {
  database: new pg.Pool({ connectionString: process.env.BA_DATABASE_URL }),
  secret: process.env.BA_SECRET,
  baseURL,
  emailAndPassword: { enabled: true },
  // Off, as Till's is for the bench: the default (on when NODE_ENV=production) allows 100 requests per 10 s.
  rateLimit: { enabled: false },
};

const { runMigrations } = await getMigrations(options);
await runMigrations();
const auth = betterAuth(options);

const handle = toNodeHandler(auth);
// Node never looks at a request handler's result; void says the promise is left to run, as before.
const server = createServer((req, res) => void handle(req, res));
server.keepAliveTimeout = 65_000;
await new Promise((resolve, reject) => {
  server.once('error', reject);
  server.listen(port, '127.0.0.1', resolve);
});
process.stdout.write(`better-auth listening on ${baseURL}\n`);
process.send?.({ type: 'ready', url: baseURL });

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  setTimeout(() => process.exit(0), 3000).unref();
  server.close();
  server.closeAllConnections();
  await options.database.end().catch(() => undefined);
  process.exit(0);
}
// stop() swallows its own errors and exits.
const onSignal = () => void stop();
process.on('SIGTERM', onSignal);
process.on('SIGINT', onSignal);
process.on('disconnect', onSignal);
