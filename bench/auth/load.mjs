// Load generator, run as a child process of run.js (fork, IPC). One undici Pool with a fixed number of keep-alive
// connections, one request in flight per connection (closed loop), for a warm-up and then a measured window.
//
// Protocol (IPC messages):
//   parent -> child  {type: 'run', spec}   spec: see below
//   child  -> parent {type: 'measuring'}   the measured window starts now
//   parent -> child  {type: 'stop'}        end the measured window now (for runs with duration: null)
//   child  -> parent {type: 'result', result}
//
// spec: {origin, path, method, headers, body, bodies (optional: sent in turn instead of `body`), connections,
//        warmupMs, durationMs (null = until 'stop'),
//        expectStatus, expectText (substring every good body must contain), rate (0 = flat out; otherwise
//        requests per second, scheduled ahead and timed from the scheduled start so queueing is not hidden)}
//
// Only requests completing inside the measured window count. Every response is checked (status and, when given,
// a substring of the body), so a server answering fast with errors or `null` cannot look good.
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

const MAX_SAMPLES_KEPT = 5;

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
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
  const headers = spec.headers ?? {};
  const body = spec.body ?? undefined;
  const bodies = spec.bodies ?? null;
  let nextBody = 0;
  const expectStatus = spec.expectStatus ?? 200;
  const expectText = spec.expectText ?? null;

  const latencies = [];
  let good = 0;
  let bad = 0;
  const badStatuses = {};
  const badSamples = [];
  let stopping = false;
  let measureStart = Infinity;
  let measureEnd = Infinity;
  let startedAt = 0;
  let cpuAtStart = null;
  let windowMs = 0;

  const begin = performance.now();
  const beginMeasuring = () => {
    measureStart = performance.now();
    cpuAtStart = process.cpuUsage();
    if (spec.durationMs != null) measureEnd = measureStart + spec.durationMs;
    process.send?.({ type: 'measuring' });
  };
  const finishMeasuring = () => {
    if (stopping) return;
    measureEnd = Math.min(measureEnd, performance.now());
    stopping = true;
  };

  process.on('message', (message) => {
    if (message && message.type === 'stop') {
      if (measureStart === Infinity) beginMeasuring();
      finishMeasuring();
    }
  });
  const warmupTimer = setTimeout(beginMeasuring, spec.warmupMs ?? 0);
  let endTimer = null;
  if (spec.durationMs != null) endTimer = setTimeout(finishMeasuring, (spec.warmupMs ?? 0) + spec.durationMs);

  // Paced mode: a shared schedule of intended start times, spread over the connections.
  const rate = spec.rate > 0 ? spec.rate : 0;
  let slot = 0;
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  async function loop() {
    while (!stopping) {
      let t0;
      if (rate) {
        const intended = begin + (slot++ * 1000) / rate;
        const wait = intended - performance.now();
        if (wait > 1) await sleep(wait);
        if (stopping) return;
        t0 = intended;
      } else {
        t0 = performance.now();
      }
      let ok = false;
      let status = 'error';
      let text = '';
      try {
        const sent = bodies ? bodies[nextBody++ % bodies.length] : body;
        const response = await pool.request({ path: spec.path, method: spec.method ?? 'GET', headers, body: sent });
        status = response.statusCode;
        text = await response.body.text();
        ok = status === expectStatus && (expectText === null || text.includes(expectText));
      } catch (error) {
        text = String(error && error.message ? error.message : error);
      }
      const t1 = performance.now();
      if (t1 >= measureStart && t1 <= measureEnd) {
        if (ok) {
          good++;
          latencies.push(t1 - t0);
        } else {
          bad++;
          badStatuses[status] = (badStatuses[status] ?? 0) + 1;
          if (badSamples.length < MAX_SAMPLES_KEPT) badSamples.push(`${status}: ${text.slice(0, 200)}`);
        }
      }
      if (!ok && status === 'error' && !stopping) await sleep(10); // do not spin on a dead server
    }
  }

  startedAt = performance.now();
  await Promise.all(Array.from({ length: spec.connections }, loop));
  clearTimeout(warmupTimer);
  if (endTimer) clearTimeout(endTimer);
  windowMs = measureEnd - measureStart;
  const cpu = cpuAtStart ? process.cpuUsage(cpuAtStart) : { user: 0, system: 0 };
  await pool.close().catch(() => undefined);

  latencies.sort((a, b) => a - b);
  const mean = latencies.length ? latencies.reduce((sum, value) => sum + value, 0) / latencies.length : null;
  return {
    requests: good,
    errors: bad,
    badStatuses,
    badSamples,
    windowSeconds: windowMs / 1000,
    rps: windowMs > 0 ? good / (windowMs / 1000) : 0,
    latencyMs: {
      mean,
      p50: percentile(latencies, 50),
      p90: percentile(latencies, 90),
      p99: percentile(latencies, 99),
      max: latencies.length ? latencies[latencies.length - 1] : null,
    },
    // Share of one core the load generator itself used during the window (near 100 % = it may be the bottleneck).
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
