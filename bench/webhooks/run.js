#!/usr/bin/env node
// Webhook benchmark (issue 8): signed deliveries per second, from the commit of a change to a local receiver's 2xx,
// on SQLite and on PostgreSQL, and the latency from commit to the first attempt's arrival (p50/p99).
//
// Events come from the API, as a merchant makes them: a commit load (this file run as a child with --commit-load)
// sends `PATCH /v1/products/{id} {"name": ...}` at a steady rate (open loop, paced), each one committing a product
// change and its `product.updated` outbox row in one transaction. Going through the API, not inserting outbox rows
// into the database, keeps the daemon's own wake-up on commit in the path (rows written behind its back are only
// found by its 1 s poll) and counts the API's share of the machine too.
//
// The receiver is a node:http server in this process: it answers 200 at once and records, for each delivery, its
// arrival time and the event's commit time (the envelope's `timestamp`: the outbox row's created_at, read from the
// daemon's clock inside the committing transaction, so the latency is, if anything, slightly overstated). Every
// delivery is verified with the `standardwebhooks` package; only verified deliveries count, each webhook-id once.
//
// Baseline, measured in the same run: the receiver's rate for plain POSTs of a delivery-sized body from undici
// (bench/auth/load.mjs) with the daemon's number of connections (16). Reported ratio: deliveries/s ÷ baseline POST/s.
// Runs on bench/auth's harness (processes, databases, CPU readings, clean-up) and daemon launcher (till-server.mjs).
// `npm run build && npm run bench:webhooks [-- --quick | --rate 2200 | --endpoints 1,16 | --duration 10 | --pg-url URL]`
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const GOAL_RATE = 2000; // signed deliveries per second (issue 8)
const GOAL_P99_MS = 250; // commit -> first attempt, p99
const SCOPES = ['webhooks:write', 'webhooks:read', 'products:write', 'products:read'];
const EVENT = 'product.updated';
const percentile = (sorted, p) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] : null;
const DAEMON_CONNECTIONS = 16; // src/core/webhooks/delivery.ts: new Agent({connections: 16})

// ---------------------------------------------------------------------------------------------------------------
// The commit load (child process): PATCH products at a paced rate. IPC: parent -> {type:'run', spec};
// child -> {type:'measuring'} at the end of the warm-up, {type:'result', result} at the end.

async function commitLoad(spec) {
  const { Pool } = await import('undici');
  const pool = new Pool(spec.origin, {
    connections: spec.connections,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${spec.token}` };
  const total = spec.warmupMs + spec.durationMs;
  const start = performance.now();
  let inFlight = 0;
  let sent = 0;
  let ok = 0;
  let okInWindow = 0;
  let dropped = 0; // due but not sent: every connection busy (the API is the bottleneck)
  let errors = 0;
  const samples = [];
  const latencies = [];
  let measuring = false;
  const cpu0 = { v: null };
  const pending = new Set();
  const one = async (n) => {
    inFlight++;
    const t0 = performance.now();
    try {
      const response = await pool.request({
        path: `/v1/products/${spec.productIds[n % spec.productIds.length]}`,
        method: 'PATCH',
        headers,
        body: JSON.stringify({ name: `${spec.tag} ${n}` }),
      });
      const text = await response.body.text();
      if (response.statusCode === 200) {
        ok++;
        const t1 = performance.now();
        if (t1 - start >= spec.warmupMs && t1 - start <= total) {
          okInWindow++;
          latencies.push(t1 - t0);
        }
      } else {
        errors++;
        if (samples.length < 5) samples.push(`${response.statusCode} ${text.slice(0, 200)}`);
      }
    } catch (error) {
      errors++;
      if (samples.length < 5) samples.push(String(error?.message ?? error));
    } finally {
      inFlight--;
    }
  };
  await new Promise((done) => {
    const tick = () => {
      const elapsed = performance.now() - start;
      if (!measuring && elapsed >= spec.warmupMs) {
        measuring = true;
        cpu0.v = process.cpuUsage();
        process.send({ type: 'measuring' });
      }
      if (elapsed >= total) return done();
      const due = Math.floor((Math.min(elapsed, total) / 1000) * spec.rate);
      while (sent + dropped < due) {
        if (inFlight >= spec.connections) {
          dropped++;
          continue;
        }
        const p = one(sent++);
        pending.add(p);
        // one() catches its own errors, so this chain never rejects.
        void p.finally(() => pending.delete(p));
      }
      setTimeout(tick, 2);
    };
    tick();
  });
  await Promise.allSettled([...pending]);
  await pool.close().catch(() => undefined);
  latencies.sort((a, b) => a - b);
  const pct = (p) =>
    latencies.length ? latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)] : null;
  const cpu = cpu0.v ? process.cpuUsage(cpu0.v) : { user: 0, system: 0 };
  return {
    sent,
    ok,
    dropped,
    errors,
    samples,
    commitsPerSecond: okInWindow / (spec.durationMs / 1000),
    patchLatencyMs: { p50: pct(50), p99: pct(99) },
    loaderCpuPercent: ((cpu.user + cpu.system) / 1000 / spec.durationMs) * 100,
  };
}

if (process.argv.includes('--one-endpoint')) {
  // Issue 20's one-endpoint goals, with their own event source and receiver (one-endpoint.mjs).
  const { runOneEndpoint } = await import('./one-endpoint.mjs');
  process.exit(await runOneEndpoint(process.argv.slice(2)));
} else if (process.argv[2] === '--commit-load') {
  process.on('disconnect', () => process.exit(0));
  process.once('message', (message) => {
    commitLoad(message.spec).then(
      (result) => process.send({ type: 'result', result }, () => process.exit(0)),
      (error) => process.send({ type: 'failed', error: String(error?.stack ?? error) }, () => process.exit(1)),
    );
  });
} else {
  await orchestrate();
}

// ---------------------------------------------------------------------------------------------------------------
// The orchestrator

async function orchestrate() {
  const { Webhook } = await import('standardwebhooks');
  const harness = await import('../auth/harness.mjs');
  const {
    BenchError,
    EXIT_WITH_PARENT,
    HERE: AUTH_BENCH,
    ROOT,
    cleanup,
    cookiesFrom,
    createDatabase,
    freePort,
    log,
    logServerOutput,
    makeTempDir,
    processCpuSeconds,
    requestText,
    sleep,
    startChild,
    startLoad,
    stopChild,
    systemCpu,
    tillEnv,
    waitUntilReady,
    withAdmin,
  } = harness;
  const { summarizeProfile } = await import('../auth/profile-summary.mjs');
  const { fmt, row } = await import('../auth/report.mjs');
  const { benchFlags } = await import('../auth/flags.mjs');

  const HELP = `Usage: node bench/webhooks/run.js [options]        (npm run bench:webhooks -- [options])

  --rate <n>           deliveries per second offered (commits/s = rate / endpoints)   (2200)
  --endpoints <list>   endpoints subscribed to ${EVENT}, one scenario each            (1,16)
  --duration <s>       measured seconds per scenario                                 (10)
  --warmup <s>         warm-up seconds before measuring                              (2)
  --drain <s>          after the load, wait at most this long for late deliveries    (10)
  --connections <n>    most commits in flight at once                                (32)
  --only <list>        sqlite,postgres (the baseline always runs)                    (both)
  --pg-url <url>       PostgreSQL to create the database on   BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/test)
  --cpu-prof <dir>     run the daemons under node --cpu-prof, write the profiles to <dir> and print their hot spots
  --quick              --duration 3 --warmup 1 --drain 5
`;

  function options(argv) {
    return benchFlags(argv, {
      name: 'webhooks',
      help: HELP,
      defaults: { rate: 2200, endpoints: [1, 16], duration: 10, warmup: 2, drain: 10, connections: 32 },
      quick: { duration: 3, warmup: 1, drain: 5 },
      numbers: { rate: {}, duration: {}, warmup: { zero: true }, drain: {}, connections: { whole: true } },
      extra(arg, value, flags, usage) {
        if (arg !== '--endpoints') return false;
        flags.endpoints = value.split(',').map(Number);
        if (!flags.endpoints.every((n) => Number.isInteger(n) && n >= 1 && n <= 100))
          usage('--endpoints takes whole numbers 1..100');
        return true;
      },
    });
  }

  // ---- the receiver -------------------------------------------------------------------------------------------
  // routes: /hook/<scenario>/<i> -> {webhook, stats}; /baseline answers 200 for the baseline's plain POSTs.
  const routes = new Map();
  const deleteRetries = [];
  const receiver = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const arrived = performance.timeOrigin + performance.now();
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
      res.end('ok');
      if (req.url === '/baseline') return;
      const route = routes.get(req.url);
      if (!route) return;
      const stats = route.stats;
      const body = Buffer.concat(chunks).toString('utf8');
      let event;
      try {
        event = route.webhook.verify(body, req.headers); // throws unless signed with the endpoint's secret, in time
      } catch (error) {
        stats.unsigned++;
        if (stats.unsignedSamples.length < 3) stats.unsignedSamples.push(String(error?.message ?? error));
        return;
      }
      const id = req.headers['webhook-id'];
      if (stats.seen.has(id)) {
        stats.duplicates++;
        return;
      }
      stats.seen.add(id);
      stats.arrivals.push(arrived);
      stats.latencies.push({ committed: Date.parse(event.timestamp), arrived });
    });
  });
  receiver.keepAliveTimeout = 65_000;
  await new Promise((done) => receiver.listen(0, '127.0.0.1', done));
  const receiverUrl = `http://127.0.0.1:${receiver.address().port}`;
  const flags = options(process.argv.slice(2));

  // ---- set-up -------------------------------------------------------------------------------------------------

  async function startTill(dbUrl, label) {
    const port = await freePort();
    const env = {
      ...tillEnv({ dbUrl, port, dataDir: makeTempDir('till-bench-webhooks-') }),
      TILL_WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    };
    const execArgv = [...EXIT_WITH_PARENT];
    if (flags.cpuProf) execArgv.push('--cpu-prof', '--cpu-prof-dir', join(flags.cpuProf, label));
    const child = startChild(`till on ${label} (bench/auth/till-server.mjs)`, join(AUTH_BENCH, 'till-server.mjs'), [], {
      env,
      execArgv,
    });
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitUntilReady(child, baseUrl);
    return { child, baseUrl, label };
  }

  async function json(baseUrl, path, init = {}, expect = 200) {
    const { status, headers, text } = await requestText(baseUrl, path, init);
    if (status !== expect)
      throw new BenchError(
        `${init.method ?? 'GET'} ${path} answered ${status} (expected ${expect}): ${text.slice(0, 400)}`,
      );
    return { json: text ? JSON.parse(text) : null, headers };
  }

  /** An owner, an organization, an organization access token and `count` products to change. */
  async function setUpMerchant(baseUrl, tag, count) {
    const signUp = await json(baseUrl, '/api/auth/sign-up/email', {
      method: 'POST',
      body: { name: 'Bench Merchant', email: `owner-${tag}@example.com`, password: 'correct horse battery staple' },
    });
    const cookie = cookiesFrom(signUp.headers);
    const organization = await json(baseUrl, '/api/auth/organization/create', {
      method: 'POST',
      headers: { cookie },
      body: { name: 'Bench Shop', slug: `bench-shop-${tag}` },
    });
    const created = await json(
      baseUrl,
      '/v1/organization-access-tokens/',
      {
        method: 'POST',
        headers: { authorization: `Bearer ${signUp.json.token}` },
        body: { organization_id: organization.json.id, comment: 'bench:webhooks', scopes: SCOPES },
      },
      201,
    );
    const token = created.json.token;
    const productIds = [];
    for (let i = 0; i < count; i++) {
      const product = await json(
        baseUrl,
        '/v1/products/',
        {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
          body: {
            name: `Bench product ${i}`,
            prices: [{ amount_type: 'fixed', price_amount: 1000, price_currency: 'usd' }],
          },
        },
        201,
      );
      productIds.push(product.json.id);
    }
    return { token, productIds };
  }

  function newStats() {
    return { seen: new Set(), arrivals: [], latencies: [], duplicates: 0, unsigned: 0, unsignedSamples: [] };
  }

  async function createEndpoints(server, scenario, count) {
    const list = [];
    for (let i = 0; i < count; i++) {
      const path = `/hook/${scenario}/${i}`;
      const endpoint = await json(
        server.baseUrl,
        '/v1/webhooks/endpoints',
        {
          method: 'POST',
          headers: { authorization: `Bearer ${server.token}` },
          body: { url: `${receiverUrl}${path}`, format: 'raw', events: [EVENT] },
        },
        201,
      );
      const stats = newStats();
      routes.set(path, { webhook: new Webhook(endpoint.json.secret), stats });
      list.push({ id: endpoint.json.id, path, stats });
    }
    return list;
  }

  /** One change by hand, delivered and verified, so a broken flow stops here with its answer. */
  async function checkFlow(server) {
    const [endpoint] = await createEndpoints(server, `check-${server.label}`, 1);
    await json(server.baseUrl, `/v1/products/${server.productIds[0]}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${server.token}` },
      body: { name: 'Bench product check' },
    });
    for (
      let waited = 0;
      waited < 10_000 && endpoint.stats.arrivals.length === 0 && endpoint.stats.unsigned === 0;
      waited += 20
    )
      await sleep(20);
    if (endpoint.stats.arrivals.length !== 1) {
      throw new BenchError(
        `till on ${server.label}: the check delivery did not arrive verified (unsigned ${endpoint.stats.unsigned}: ${endpoint.stats.unsignedSamples.join(' | ')})\n${server.child.output}`,
      );
    }
    await deleteEndpoint(server, endpoint.id);
  }

  /**
   * DELETE an endpoint, again if it answers 500: on PostgreSQL, deleting an endpoint while the worker records an
   * attempt to it can deadlock (the cascade to webhook_events against the attempt's transaction). Counted in
   * `deleteRetries` and reported, as a finding about the daemon, not the benchmark.
   */
  async function deleteEndpoint(server, endpointId) {
    for (let attempt = 1; ; attempt++) {
      const { status, text } = await requestText(server.baseUrl, `/v1/webhooks/endpoints/${endpointId}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${server.token}` },
      });
      if (status === 204) return;
      if (status !== 500 || attempt >= 10)
        throw new BenchError(`DELETE /v1/webhooks/endpoints/${endpointId} answered ${status}: ${text.slice(0, 300)}`);
      deleteRetries.push(`${server.label}: DELETE endpoint answered 500 (attempt ${attempt}): ${text.slice(0, 160)}`);
      await sleep(50);
    }
  }

  // ---- one scenario -------------------------------------------------------------------------------------------

  async function runScenario(server, endpointCount, id) {
    const scenario = `${server.label}-${endpointCount}`;
    const endpoints = await createEndpoints(server, scenario, endpointCount);
    const commitRate = flags.rate / endpointCount;
    const child = startChild(`commit load on ${server.label}`, SELF, ['--commit-load'], { env: process.env });
    let windowStart = null; // wall-clock ms
    let cpu0 = null;
    let sys0 = null;
    const result = await new Promise((done, fail) => {
      child.on('message', (message) => {
        if (message.type === 'measuring') {
          windowStart = performance.timeOrigin + performance.now();
          cpu0 = processCpuSeconds(server.child.pid);
          sys0 = systemCpu();
        } else if (message.type === 'result') done(message.result);
        else if (message.type === 'failed') fail(new BenchError(`commit load failed: ${message.error}`));
      });
      child.exited.then(({ code: exit }) =>
        fail(new BenchError(`commit load exited (${exit}) without a result\n${child.output}`)),
      );
      child.send({
        type: 'run',
        spec: {
          origin: server.baseUrl,
          token: server.token,
          productIds: server.productIds,
          rate: commitRate,
          connections: flags.connections,
          warmupMs: flags.warmup * 1000,
          durationMs: flags.duration * 1000,
          tag: `bench ${id}`,
        },
      });
    });
    const windowEnd = windowStart + flags.duration * 1000;
    const loadEnd = performance.timeOrigin + performance.now(); // the last commit has been answered
    const cpu1 = processCpuSeconds(server.child.pid);
    const sys1 = systemCpu();
    // Late deliveries: wait until every successful commit's deliveries are in, or the drain limit.
    const expected = result.ok * endpointCount;
    const received = () => endpoints.reduce((sum, e) => sum + e.stats.arrivals.length, 0);
    const drainStart = performance.now();
    while (received() < expected && performance.now() - drainStart < flags.drain * 1000) await sleep(50);
    const drainMs = performance.now() - drainStart;
    const missing = expected - received();
    // Delete the endpoints: their pending events go with them (ON DELETE CASCADE), so the next scenario starts clean.
    for (const endpoint of endpoints) await deleteEndpoint(server, endpoint.id);

    const all = endpoints.map((e) => e.stats);
    // Delivery capacity without the API competing: deliveries after the last commit, over the time they took.
    const late = all.flatMap((s) => s.arrivals.filter((t) => t > loadEnd));
    const lastArrival = late.length ? Math.max(...late) : null;
    const drainPerSecond = late.length >= 50 ? late.length / ((lastArrival - loadEnd) / 1000) : null;
    const inWindow = all.reduce(
      (sum, s) => sum + s.arrivals.filter((t) => t >= windowStart && t <= windowEnd).length,
      0,
    );
    // Latency of the deliveries of events committed inside the window; one not delivered by the end of the drain
    // counts as the longest possible wait (so p99 shows it).
    const latencies = all.flatMap((s) =>
      s.latencies
        .filter((l) => l.committed >= windowStart && l.committed <= windowEnd)
        .map((l) => l.arrived - l.committed),
    );
    const lost = Math.max(0, missing);
    for (let i = 0; i < lost; i++) latencies.push(Infinity);
    latencies.sort((a, b) => a - b);
    return {
      scenario,
      endpoints: endpointCount,
      offeredPerSecond: flags.rate,
      commitsPerSecond: result.commitsPerSecond,
      deliveriesPerSecond: inWindow / flags.duration,
      drainDeliveriesPerSecond: drainPerSecond,
      deliveredAfterLoad: late.length,
      latencyMs: {
        p50: percentile(latencies, 50),
        p90: percentile(latencies, 90),
        p99: percentile(latencies, 99),
        max: latencies.at(-1) ?? null,
      },
      patchLatencyMs: result.patchLatencyMs,
      commitsDropped: result.dropped,
      commitErrors: result.errors,
      commitErrorSamples: result.samples,
      undeliveredAfterDrain: missing,
      drainSeconds: drainMs / 1000,
      duplicates: all.reduce((sum, s) => sum + s.duplicates, 0),
      unsigned: all.reduce((sum, s) => sum + s.unsigned, 0),
      unsignedSamples: all.flatMap((s) => s.unsignedSamples).slice(0, 3),
      daemonCpuPercent: cpu0 !== null && cpu1 !== null ? ((cpu1 - cpu0) / flags.duration) * 100 : null,
      daemonCpuMicrosPerDelivery:
        cpu0 !== null && cpu1 !== null && inWindow > 0 ? ((cpu1 - cpu0) * 1e6) / inWindow : null,
      machineBusyPercent:
        sys0 && sys1 && sys1.total > sys0.total ? ((sys1.busy - sys0.busy) / (sys1.total - sys0.total)) * 100 : null,
      commitLoaderCpuPercent: result.loaderCpuPercent,
    };
  }

  async function runBaseline() {
    // A delivery-sized body: the envelope of a product.updated event is about this long.
    const body = JSON.stringify({ type: EVENT, timestamp: new Date().toISOString(), data: { pad: 'x'.repeat(1100) } });
    const headers = {
      'content-type': 'application/json',
      'webhook-id': 'baseline',
      'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      'webhook-signature': `v1,${randomBytes(32).toString('base64')}`,
    };
    const spec = {
      origin: receiverUrl,
      path: '/baseline',
      method: 'POST',
      headers,
      body,
      connections: DAEMON_CONNECTIONS,
      warmupMs: flags.warmup * 1000,
      durationMs: flags.duration * 1000,
      expectStatus: 200,
      expectText: 'ok',
    };
    return startLoad('baseline', spec, { pid: process.pid }).result;
  }

  // ---- report -------------------------------------------------------------------------------------------------

  /** A latency figure; Infinity stands for deliveries still missing after the drain. */
  const ms = (value, digits) => (value === Infinity ? 'undeliv.' : fmt(value, digits));

  function report(pgVersion, baseline, results, load) {
    const widths = [26, 10, 10, 11, 9, 9, 10, 10, 11, 10, 9, 10, 9];
    const lines = [
      '',
      `Webhook benchmark: ${flags.rate} deliveries/s offered (PATCH /v1/products/{id} -> ${EVENT}, commits/s = offered / endpoints, at most ${flags.connections} in flight), ` +
        `${flags.warmup} s warm-up + ${flags.duration} s measured, drain <= ${flags.drain} s; Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? '?'}), PostgreSQL ${pgVersion ?? '-'}`,
      `Machine load average (1/5/15 min): before ${load.before.map((v) => v.toFixed(2)).join(' ')}, after ${load.after.map((v) => v.toFixed(2)).join(' ')}`,
      '',
      row(
        [
          'scenario',
          'commits/s',
          'deliv./s',
          'x baseline',
          'drain/s',
          'p50 ms',
          'p99 ms',
          'max ms',
          'daemon CPU',
          'us/deliv',
          'machine',
          'undeliv.',
          'unsigned',
        ],
        widths,
        '',
      ),
      row(
        [
          'baseline: plain POSTs',
          '',
          fmt(baseline.rps, 0),
          '1',
          '',
          fmt(baseline.latencyMs.p50, 2),
          fmt(baseline.latencyMs.p99, 2),
          fmt(baseline.latencyMs.max, 1),
          '',
          '',
          baseline.machineBusyPercent === undefined ? '' : `${fmt(baseline.machineBusyPercent, 0)} %`,
          '',
          '',
        ],
        widths,
        '',
      ),
      ...results.map((r) =>
        row(
          [
            `${r.scenario === undefined ? '' : r.scenario.startsWith('sqlite') ? 'SQLite' : 'PostgreSQL'}, ${r.endpoints} endpoint${r.endpoints > 1 ? 's' : ''}`,
            fmt(r.commitsPerSecond, 0),
            fmt(r.deliveriesPerSecond, 0),
            fmt(r.deliveriesPerSecond / baseline.rps, 3),
            fmt(r.drainDeliveriesPerSecond, 0),
            ms(r.latencyMs.p50, 1),
            ms(r.latencyMs.p99, 1),
            ms(r.latencyMs.max, 0),
            r.daemonCpuPercent === null ? '-' : `${fmt(r.daemonCpuPercent, 0)} %`,
            fmt(r.daemonCpuMicrosPerDelivery, 0),
            r.machineBusyPercent === null ? '-' : `${fmt(r.machineBusyPercent, 0)} %`,
            String(r.undeliveredAfterDrain),
            String(r.unsigned),
          ],
          widths,
          '',
        ),
      ),
      '',
      `Goals (per scenario): >= ${GOAL_RATE} signed deliveries/s and commit -> first attempt p99 < ${GOAL_P99_MS} ms`,
      ...results.map((r) => {
        const rateMet = r.deliveriesPerSecond >= GOAL_RATE;
        const p99Met = r.latencyMs.p99 !== null && r.latencyMs.p99 < GOAL_P99_MS;
        return (
          `  ${(r.scenario.startsWith('sqlite') ? 'SQLite' : 'PostgreSQL').padEnd(10)} ${String(r.endpoints).padStart(3)} endpoint(s): ${fmt(r.deliveriesPerSecond, 0).padStart(6)}/s ${rateMet ? 'MET   ' : 'MISSED'}   p99 ${r.latencyMs.p99 === Infinity ? `> ${flags.warmup + flags.duration + flags.drain} s (undelivered)` : `${fmt(r.latencyMs.p99, 1)} ms`} ${p99Met ? 'MET' : 'MISSED'}` +
          (r.commitsDropped
            ? `   (${r.commitsDropped} commits not sent: every connection busy, the API fell behind the offered rate)`
            : '')
        );
      }),
    ];
    const failures = results.flatMap((r) => [
      ...(r.unsigned
        ? [`${r.scenario}: ${r.unsigned} deliveries failed verification: ${r.unsignedSamples.join(' | ')}`]
        : []),
      ...(r.commitErrors
        ? [`${r.scenario}: ${r.commitErrors} commits failed: ${r.commitErrorSamples.join(' | ')}`]
        : []),
      ...(r.deliveriesPerSecond === 0 ? [`${r.scenario}: no delivery in the measured window`] : []),
    ]);
    if (baseline.errors) failures.push(`baseline: ${baseline.errors} errors ${baseline.badSamples.join(' | ')}`);
    if (deleteRetries.length)
      lines.push(
        '',
        `Note: ${deleteRetries.length} endpoint DELETE(s) answered 500 and were retried (daemon issue, see README):`,
        ...deleteRetries.slice(0, 3).map((d) => `  ${d}`),
      );
    if (failures.length) lines.push('', 'FAILED:', ...failures.map((f) => `  ${f}`));
    lines.push('');
    process.stdout.write(lines.join('\n') + '\n');
    const out = {
      bench: 'webhooks',
      ok: failures.length === 0,
      config: { ...flags, node: process.version, cpus: cpus().length, postgres: pgVersion },
      load,
      baseline,
      results,
      goal: { deliveriesPerSecond: GOAL_RATE, p99Ms: GOAL_P99_MS },
      deleteRetries,
      failures,
    };
    process.stdout.write(JSON.stringify(out, (key, value) => (value === Infinity ? 'lost' : value)) + '\n');
    return failures.length === 0 ? 0 : 1;
  }

  // ---- main ---------------------------------------------------------------------------------------------------

  async function main() {
    if (!existsSync(join(ROOT, 'dist/src/daemon/server.js')))
      throw new BenchError('dist/ is missing: run `npm run build` first');
    if (flags.cpuProf) for (const db of flags.only) mkdirSync(join(flags.cpuProf, db), { recursive: true });
    const load = { before: loadavg(), after: null };
    const id = `${process.pid}_${randomBytes(3).toString('hex')}`;
    const servers = {};
    let pgVersion = null;
    try {
      if (flags.only.includes('sqlite'))
        servers.sqlite = await startTill(`sqlite:${join(makeTempDir('till-bench-webhooks-db-'), 'till.db')}`, 'sqlite');
      if (flags.only.includes('postgres')) {
        pgVersion = (await withAdmin(flags.pgUrl, (client) => client.query('SHOW server_version'))).rows[0]
          .server_version;
        servers.postgres = await startTill(await createDatabase(flags.pgUrl, `bench_webhooks_${id}`), 'postgres');
      }
      for (const db of flags.only) {
        Object.assign(
          servers[db],
          await setUpMerchant(servers[db].baseUrl, `${db}-${id}`.replaceAll('_', '-'), flags.connections),
        );
        await checkFlow(servers[db]);
        log(
          `till on ${db} at ${servers[db].baseUrl} (pid ${servers[db].child.pid}): merchant, token, ${flags.connections} products ready; one delivery checked`,
        );
      }
      log(`baseline: plain POSTs to the receiver, ${DAEMON_CONNECTIONS} connections`);
      const baseline = await runBaseline();
      const results = [];
      for (const db of flags.only) {
        for (const count of flags.endpoints) {
          log(`till on ${db}, ${count} endpoint(s), ${flags.rate} deliveries/s offered`);
          results.push(await runScenario(servers[db], count, id));
        }
      }
      load.after = loadavg();
      return report(pgVersion, baseline, results, load);
    } finally {
      for (const server of Object.values(servers)) {
        await stopChild(server.child);
        logServerOutput(server.child);
      }
      if (flags.cpuProf) {
        for (const db of Object.keys(servers)) {
          const dir = join(flags.cpuProf, db);
          for (const file of readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'))) {
            process.stderr.write(
              `\nCPU profile of Till on ${db}: ${join(dir, file)}\n${summarizeProfile(join(dir, file), 25)}\n`,
            );
          }
        }
      }
    }
  }

  // ---- run: the daemons, the loads, the database and the data directories go whatever happens -------------
  let code = 1;
  try {
    code = await main();
  } catch (error) {
    process.stderr.write(`bench:webhooks: ${error instanceof BenchError ? error.message : (error.stack ?? error)}\n`);
  } finally {
    receiver.closeAllConnections();
    receiver.close();
    await cleanup(flags.pgUrl);
  }
  process.exit(code);
}
