// The delivery path's HTTP side alone: CPU per delivery of the deliverer's `send` (signing, the POST, reading the
// answer) to a receiver in another process that answers at once, 32 deliveries in flight (an endpoint's default
// concurrency). No database. `node bench/webhooks/send-cost.mjs [dist dir] [deliveries]`, after `npm run build`;
// pass another checkout's dist/ to compare. Prints one JSON line.
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SELF = fileURLToPath(import.meta.url);

if (process.argv[2] === '--receiver') {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-length': '2' }).end('ok'));
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => process.send(server.address().port));
} else {
  const dist = resolve(process.argv[2] ?? new URL('../../dist', import.meta.url).pathname);
  const count = Number(process.argv[3] ?? 20_000);
  const load = (path) => import(pathToFileURL(`${dist}/src/${path}`).href);
  const { createDeliverer } = await load('core/webhooks/delivery.js');
  const { systemClock } = await load('core/kernel/clock.js');
  const receiver = fork(SELF, ['--receiver']);
  const port = await new Promise((done) => receiver.once('message', done));
  const deliverer = createDeliverer({
    clock: systemClock,
    signingClock: systemClock,
    config: { timeoutMs: 10_000, allowPrivateUrls: true },
    endpoints: {},
    mail: {},
  });
  const payload = JSON.stringify({
    type: 'order.updated',
    timestamp: new Date().toISOString(),
    data: { id: 'e1', n: 1, customer_id: 'cus_1', amount: 1000, currency: 'usd' },
  });
  const endpoint = { id: 'endpoint', url: `http://127.0.0.1:${port}/hook` };
  const secrets = [`whsec_${Buffer.alloc(33, 7).toString('base64')}`];
  const event = (i) => ({
    id: `0190${String(i).padStart(8, '0')}-0000-7000-8000-000000000000`,
    payload,
    attempts: 1,
    replayBase: 0,
    requestId: null,
  });
  const run = async (n) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < n) {
          const outcome = await deliverer.send(event(next++), endpoint, secrets);
          if (!outcome.succeeded) throw new Error(outcome.response);
        }
      }),
    );
  };
  await run(2_000); // warm-up: connections, JIT
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await run(count);
  const cpu = process.cpuUsage(cpu0);
  const seconds = (performance.now() - t0) / 1000;
  process.stdout.write(
    `${JSON.stringify({ dist, deliveries: count, cpuMicrosPerDelivery: Number(((cpu.user + cpu.system) / count).toFixed(1)), perSecond: Math.round(count / seconds) })}\n`,
  );
  await deliverer.close();
  receiver.kill();
}
