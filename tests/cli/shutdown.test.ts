import { request as httpRequest, createServer, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/core/database/index.js';
import type { TestDaemon } from '../helpers/daemon.js';
import { createTestDatabase } from '../helpers/database.js';
import { uniqueEmail } from '../helpers/http.js';
import { createMerchant } from '../helpers/v1.js';
import { createEndpoint } from '../helpers/webhooks.js';
import { freePort, PASSWORD, Sandbox } from './till.js';

const SECRET = 'shutdown-test-secret-that-is-long-enough-0123';
const cli = new Sandbox({ TILL_BCRYPT_COST: '4', TILL_HASH_WORKERS: '1', TILL_RATE_LIMIT: 'off' });
const strayPids: number[] = [];
afterAll(() => {
  for (const pid of strayPids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone, as it should be.
    }
  }
  cli.cleanup();
});

/** A webhook receiver that holds each delivery until `release` is called, and tells when one arrived. */
function slowReceiver() {
  let arrived!: () => void;
  const firstArrived = new Promise<void>((resolve) => (arrived = resolve));
  const held: Array<() => void> = [];
  const server = createServer((req: IncomingMessage, res) => {
    req.resume();
    req.on('end', () => {
      held.push(() => res.writeHead(204).end());
      arrived();
    });
  });
  return {
    server,
    firstArrived,
    release: () => held.splice(0).forEach((answer) => answer()),
    listen: () =>
      new Promise<string>((resolve) =>
        server.listen(0, '127.0.0.1', () =>
          resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}/`),
        ),
      ),
  };
}

// The built daemon on the test database's dialect (TILL_TEST_DATABASE_URL), SQLite by default.
describe('till daemon run on SIGTERM', () => {
  it('stops accepting, finishes the request and the webhook delivery in flight, holds no claim, exits 0', async () => {
    const database = await createTestDatabase();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = {
      TILL_DATA_DIR: join(cli.root, 'data'),
      TILL_DATABASE_URL: database.url,
      TILL_PORT: String(port),
      TILL_SECRET: SECRET,
      TILL_WEBHOOK_ALLOW_PRIVATE_URLS: 'on',
    };
    const daemon = cli.spawn(['daemon', 'run'], { env });
    strayPids.push(daemon.pid!);
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      daemon.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('listening on http://')) resolve();
      });
      daemon.once('exit', () => reject(new Error(`the daemon exited early: ${stderr}`)));
    });
    const receiver = slowReceiver();
    try {
      const merchant = await createMerchant({ url } as TestDaemon);
      await createEndpoint(merchant, await receiver.listen(), ['product.created']);
      const created = await merchant.api.post('/v1/products/', {
        name: 'Shutdown',
        prices: [{ amount_type: 'fixed', price_amount: 100, price_currency: 'usd' }],
      });
      expect(created.status).toBe(201);
      await receiver.firstArrived;

      // A sign-up whose body is only half sent when the signal comes.
      const body = JSON.stringify({ name: 'Late', email: uniqueEmail('late'), password: PASSWORD });
      const slow = httpRequest(`${url}/api/auth/sign-up/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: url, 'content-length': Buffer.byteLength(body) },
      });
      const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
        slow.on('response', (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        });
        slow.on('error', reject);
      });
      slow.write(body.slice(0, 10));
      await new Promise<void>((resolve) => slow.once('socket', (socket) => socket.once('connect', resolve)));

      daemon.kill('SIGTERM');
      await new Promise<void>((resolve) => {
        const check = () => (stderr.includes('SIGTERM received') ? resolve() : setTimeout(check, 20));
        check();
      });
      // New connections are refused from now on.
      await expect(request(`${url}/healthz`)).rejects.toThrow();
      await sleep(300);
      slow.end(body.slice(10));
      await sleep(300);
      receiver.release();

      const finished = await answered;
      expect(finished.status, finished.text).toBe(200);
      // A limit for the whole shutdown (10 s of grace and the close), not a measurement of it.
      const exited = await Promise.race([daemon, sleep(30_000).then(() => null)]);
      expect(exited, 'the daemon did not exit').not.toBeNull();
      expect(exited!.exitCode, stderr).toBe(0);
      expect(stderr).toContain('stopped');

      const db = createDb(database.url);
      try {
        const events = await db('webhook_events').select('status', 'claimed_until');
        expect(events).toEqual([expect.objectContaining({ status: 'succeeded', claimed_until: null })]);
        expect(await db('scheduled_jobs').whereNotNull('claimed_by').count({ n: '*' })).toEqual([{ n: 0 }]);
        expect(await db('mails').whereNotNull('locked_until').where('status', 'pending').count({ n: '*' })).toEqual([
          { n: 0 },
        ]);
      } finally {
        await db.destroy();
      }
    } finally {
      receiver.release();
      receiver.server.close();
      await database.drop();
    }
  }, 120_000);
});
