// Purchase load generator, run as a child process of bench/checkout/run.js (fork, IPC). bench/auth/load.mjs sends
// one fixed request per loop; a purchase is two dependent requests, so this one loops over the pair instead:
// N workers share one undici Pool of N keep-alive connections, and each worker (closed loop) creates a checkout
// with the organization access token, then confirms it by its client secret with a new customer e-mail and the
// sandbox's test card, and counts a purchase only when the confirm answers 200 with status `confirmed` (Polar's CheckoutPublicConfirmed; the order is then paid and the checkout `succeeded`).
//
// Protocol (IPC messages), as bench/auth/load.mjs, so the harness's CPU readings work the same way:
//   parent -> child  {type: 'run', spec}
//   child  -> parent {type: 'measuring'}   the measured window starts now
//   child  -> parent {type: 'result', result}
//
// spec: {origin, token, productId, connections, warmupMs, durationMs, emailPrefix}
//
// Only purchases whose confirm completes inside the measured window count (`requests` = purchases, so the
// harness's serverCpuMicrosPerRequest is server CPU per purchase). Latency is per purchase, from sending the
// create to reading the confirm's body; the two steps are also reported on their own.
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

const MAX_SAMPLES_KEPT = 5;

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

function summary(values) {
  values.sort((a, b) => a - b);
  return {
    mean: values.length ? values.reduce((sum, value) => sum + value, 0) / values.length : null,
    p50: percentile(values, 50),
    p90: percentile(values, 90),
    p99: percentile(values, 99),
    max: values.length ? values[values.length - 1] : null,
  };
}

async function run(spec) {
  const pool = new Pool(spec.origin, {
    connections: spec.connections,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    keepAliveMaxTimeout: 600_000,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const createHeaders = { 'content-type': 'application/json', authorization: `Bearer ${spec.token}` };
  const confirmHeaders = { 'content-type': 'application/json' };
  const createBody = JSON.stringify({ products: [spec.productId] });

  const latencies = [];
  const createLatencies = [];
  const confirmLatencies = [];
  let good = 0;
  let bad = 0;
  let started = 0;
  const badStatuses = {};
  const badSamples = [];
  let stopping = false;
  let measureStart = Infinity;
  let measureEnd = Infinity;
  let cpuAtStart = null;

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const beginMeasuring = () => {
    measureStart = performance.now();
    cpuAtStart = process.cpuUsage();
    measureEnd = measureStart + spec.durationMs;
    process.send?.({ type: 'measuring' });
  };
  const warmupTimer = setTimeout(beginMeasuring, spec.warmupMs ?? 0);
  const endTimer = setTimeout(
    () => {
      measureEnd = Math.min(measureEnd, performance.now());
      stopping = true;
    },
    (spec.warmupMs ?? 0) + spec.durationMs,
  );

  const fail = (step, status, text) => {
    const t = performance.now();
    if (t < measureStart || t > measureEnd) return;
    bad++;
    const key = `${step} ${status}`;
    badStatuses[key] = (badStatuses[key] ?? 0) + 1;
    if (badSamples.length < MAX_SAMPLES_KEPT) badSamples.push(`${key}: ${String(text).slice(0, 200)}`);
  };

  async function worker(index) {
    while (!stopping) {
      const n = started++;
      const t0 = performance.now();
      // 1. the merchant creates the checkout
      let clientSecret;
      try {
        const response = await pool.request({
          path: '/v1/checkouts/',
          method: 'POST',
          headers: createHeaders,
          body: createBody,
        });
        const text = await response.body.text();
        if (response.statusCode !== 201) {
          fail('create', response.statusCode, text);
          continue;
        }
        clientSecret = JSON.parse(text).client_secret;
      } catch (error) {
        fail('create', 'error', error?.message ?? error);
        if (!stopping) await sleep(10); // do not spin on a dead server
        continue;
      }
      const t1 = performance.now();
      // 2. the buyer confirms and pays with the sandbox's test card; the order is paid when this answers `confirmed`
      try {
        const body = JSON.stringify({
          customer_email: `${spec.emailPrefix}-${index}-${n}@example.com`,
          customer_billing_address: { country: 'DE' },
          confirmation_token_id: 'tok_visa',
        });
        const response = await pool.request({
          path: `/v1/checkouts/client/${encodeURIComponent(clientSecret)}/confirm`,
          method: 'POST',
          headers: confirmHeaders,
          body,
        });
        const text = await response.body.text();
        if (response.statusCode !== 200 || !text.includes('"status":"confirmed"')) {
          fail('confirm', response.statusCode, text);
          continue;
        }
      } catch (error) {
        fail('confirm', 'error', error?.message ?? error);
        if (!stopping) await sleep(10);
        continue;
      }
      const t2 = performance.now();
      if (t2 >= measureStart && t2 <= measureEnd) {
        good++;
        latencies.push(t2 - t0);
        createLatencies.push(t1 - t0);
        confirmLatencies.push(t2 - t1);
      }
    }
  }

  const startedAt = performance.now();
  await Promise.all(Array.from({ length: spec.connections }, (_, i) => worker(i)));
  clearTimeout(warmupTimer);
  clearTimeout(endTimer);
  const windowMs = measureEnd - measureStart;
  const cpu = cpuAtStart ? process.cpuUsage(cpuAtStart) : { user: 0, system: 0 };
  await pool.close().catch(() => undefined);

  return {
    requests: good, // purchases
    errors: bad,
    badStatuses,
    badSamples,
    windowSeconds: windowMs / 1000,
    rps: windowMs > 0 ? good / (windowMs / 1000) : 0, // purchases per second
    latencyMs: summary(latencies),
    createLatencyMs: summary(createLatencies),
    confirmLatencyMs: summary(confirmLatencies),
    purchasesStarted: started,
    loaderCpuPercent: windowMs > 0 ? ((cpu.user + cpu.system) / 1000 / windowMs) * 100 : 0,
    totalSeconds: (performance.now() - startedAt) / 1000,
  };
}

process.on('disconnect', () => process.exit(0)); // the orchestrator went away
process.once('message', (message) => {
  if (!message || message.type !== 'run') return;
  run(message.spec).then(
    (result) => {
      process.send({ type: 'result', result }, () => process.exit(0));
    },
    (error) => {
      process.send({ type: 'failed', error: String(error && error.stack ? error.stack : error) }, () =>
        process.exit(1),
      );
    },
  );
});
