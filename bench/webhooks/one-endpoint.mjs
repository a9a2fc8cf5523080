// Issue 20's webhook goals, one endpoint: `node bench/webhooks/run.js --one-endpoint [--quick] [--only sqlite,postgres]
// [--pg-url url]`. See README.md ("One endpoint"). Events come from the daemon's own process (source-server.mjs);
// the receiver here verifies every delivery, checks per-customer order, and a violation fails the run.
import { readdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const CUSTOMERS = 1000;
const SCOPES = ['webhooks:write', 'webhooks:read'];
const percentile = (sorted, p) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] : null;

const ONE_ENDPOINT_HELP = `Usage: node bench/webhooks/run.js --one-endpoint [options]

Issue 20's webhook goals with one endpoint (README.md, "One endpoint").

  --quick                  shorter scenarios (4 s measured instead of 10; a backlog of 20,000 instead of 100,000)
  --only <dbs>             sqlite, postgres or both (default: both)
  --scenarios <names>      only the scenarios whose names start with these (comma-separated)
  --pg-url <url>           PostgreSQL server for the postgres run (default: $BENCH_PG_URL or local)
  --cpu-prof <dir>         run the daemons under node --cpu-prof and write the profiles to <dir>
  -h, --help               this help
`;

/** The scenarios and their goals (issue 20). */
function scenarios(quick) {
  const measured = quick ? 4 : 10;
  return [
    { name: '1 ms receiver', kind: 'rate', rate: 3300, delayMs: 1, measured, goal: { perSecond: 3000 } },
    { name: '50 ms receiver', kind: 'rate', rate: 600, delayMs: 50, measured, goal: { perSecond: 500 } },
    { name: '1,000 commits/s', kind: 'rate', rate: 1000, delayMs: 1, measured, goal: { p99Ms: 250 } },
    { name: 'backlog', kind: 'backlog', count: quick ? 20_000 : 100_000, delayMs: 1, goal: { drainPerSecond: 2000 } },
  ];
}

export async function runOneEndpoint(argv) {
  const { Webhook } = await import('standardwebhooks');
  const h = await import('../auth/harness.mjs');
  const { fmt, row } = await import('../auth/report.mjs');
  const { benchFlags } = await import('../auth/flags.mjs');
  const flags = benchFlags(
    argv.filter((arg) => arg !== '--one-endpoint'),
    {
      name: 'webhooks --one-endpoint',
      help: ONE_ENDPOINT_HELP,
      defaults: { quick: false, scenarios: null },
      quick: { quick: true },
      extra(arg, value, flags, usage) {
        if (arg !== '--scenarios') return false;
        // Checked like --only: a stray comma would otherwise be an empty name, which every scenario starts with.
        const names = scenarios(false).map((scenario) => scenario.name);
        flags.scenarios = value
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean);
        if (flags.scenarios.length === 0) usage('--scenarios: no scenario named');
        for (const prefix of flags.scenarios)
          if (!names.some((name) => name.startsWith(prefix)))
            usage(`--scenarios: no scenario starts with "${prefix}" (${names.join(', ')})`);
        return true;
      },
    },
  );
  const warmupMs = flags.quick ? 1000 : 2000;
  const drainMs = 20_000;

  // ---- the receiver: one route per scenario ----------------------------------------------------------------
  const routes = new Map();
  const receiver = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const arrived = performance.timeOrigin + performance.now();
      if (req.url === '/baseline') return res.writeHead(200, { 'content-length': '2' }).end('ok');
      const route = routes.get(req.url);
      if (!route) return res.writeHead(404).end();
      const s = route.stats;
      let event;
      try {
        event = route.webhook.verify(Buffer.concat(chunks).toString('utf8'), req.headers);
      } catch (error) {
        s.unsigned++;
        if (s.samples.length < 3) s.samples.push(String(error?.message ?? error));
        return res.writeHead(400).end();
      }
      const { n, customer_id: customer } = event.data;
      // Per customer: never two in flight at once, and each first arrival after the ones committed before it.
      const flying = (s.inFlight.get(customer) ?? 0) + 1;
      s.inFlight.set(customer, flying);
      if (flying > 1) s.violations.push(`${customer}: e${n} arrived while another of its events was in flight`);
      const id = req.headers['webhook-id'];
      if (s.seen.has(id)) s.duplicates++;
      else {
        s.seen.add(id);
        const last = s.lastN.get(customer) ?? -1;
        if (n < last) s.violations.push(`${customer}: e${n} arrived after e${last}`);
        s.lastN.set(customer, n);
        s.arrivals.push(arrived);
        s.latencies.push(arrived - Date.parse(event.timestamp));
      }
      const answer = () => {
        s.inFlight.set(customer, s.inFlight.get(customer) - 1);
        res.writeHead(200, { 'content-length': '2' }).end('ok');
      };
      if (route.held) route.held.push(answer);
      else setTimeout(answer, route.delayMs);
    });
  });
  receiver.keepAliveTimeout = 65_000;
  await new Promise((done) => receiver.listen(0, '127.0.0.1', done));
  const receiverUrl = `http://127.0.0.1:${receiver.address().port}`;

  // ---- a daemon with its event source ------------------------------------------------------------------------
  async function startTill(dbUrl, label) {
    const port = await h.freePort();
    const env = {
      ...h.tillEnv({ dbUrl, port, dataDir: h.makeTempDir('till-bench-webhooks-') }),
      TILL_WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      // The backlog scenario holds the first deliveries while it writes its events.
      TILL_WEBHOOK_TIMEOUT_MS: '60000',
    };
    const child = h.startChild(`till on ${label} (source-server.mjs)`, join(HERE, 'source-server.mjs'), [], {
      env,
      execArgv: [
        ...h.EXIT_WITH_PARENT,
        ...(flags.cpuProf ? ['--cpu-prof', '--cpu-prof-dir', join(flags.cpuProf, label)] : []),
      ],
    });
    const baseUrl = `http://127.0.0.1:${port}`;
    await h.waitUntilReady(child, baseUrl);
    return { child, baseUrl, label };
  }

  async function call(baseUrl, path, init, expect) {
    const { status, headers, text } = await h.requestText(baseUrl, path, init);
    if (status !== expect) throw new h.BenchError(`${init.method} ${path} answered ${status}: ${text.slice(0, 300)}`);
    return { json: text ? JSON.parse(text) : null, headers };
  }

  async function setUpMerchant(server, tag) {
    const signUp = await call(
      server.baseUrl,
      '/api/auth/sign-up/email',
      {
        method: 'POST',
        body: { name: 'Bench', email: `owner-${tag}@example.com`, password: 'correct horse battery staple' },
      },
      200,
    );
    const cookie = h.cookiesFrom(signUp.headers);
    const organization = await call(
      server.baseUrl,
      '/api/auth/organization/create',
      { method: 'POST', headers: { cookie }, body: { name: 'Bench Shop', slug: `bench-${tag}` } },
      200,
    );
    const token = await call(
      server.baseUrl,
      '/v1/organization-access-tokens/',
      {
        method: 'POST',
        headers: { authorization: `Bearer ${signUp.json.token}` },
        body: { organization_id: organization.json.id, comment: 'bench:webhooks', scopes: SCOPES },
      },
      201,
    );
    Object.assign(server, { organizationId: organization.json.id, token: token.json.token, next: 0 });
  }

  async function endpointFor(server, path, route) {
    const created = await call(
      server.baseUrl,
      '/v1/webhooks/endpoints',
      {
        method: 'POST',
        headers: { authorization: `Bearer ${server.token}` },
        body: { url: `${receiverUrl}${path}`, format: 'raw', events: ['order.updated'] },
      },
      201,
    );
    const stats = {
      seen: new Set(),
      arrivals: [],
      latencies: [],
      inFlight: new Map(),
      lastN: new Map(),
      violations: [],
      duplicates: 0,
      unsigned: 0,
      samples: [],
    };
    routes.set(path, { ...route, webhook: new Webhook(created.json.secret), stats });
    return { id: created.json.id, stats };
  }

  /** Sends `message` to the daemon's event source and waits for the reply of type `type`. */
  function ask(server, message, type) {
    return new Promise((done, fail) => {
      const onMessage = (reply) => {
        if (reply.type === type) done(reply);
        else if (reply.type === 'failed') fail(new h.BenchError(`event source: ${reply.error}`));
        else return;
        server.child.off('message', onMessage);
      };
      server.child.on('message', onMessage);
      server.child.send(message);
    });
  }

  async function waitFor(stats, count, limitMs = drainMs) {
    const start = performance.now();
    while (stats.arrivals.length < count && performance.now() - start < limitMs) await h.sleep(20);
  }

  /**
   * What the receiver and the loopback take, in the same run: plain POSTs of a delivery-sized body from undici with an
   * endpoint's default concurrency (32 connections), answered at once. deliveries/s ÷ this is the figure to compare
   * across machines.
   */
  async function runBaseline() {
    const body = JSON.stringify({
      type: 'order.updated',
      timestamp: new Date().toISOString(),
      data: { id: 'e0', n: 0, customer_id: 'cus_0', amount: 1000, currency: 'usd' },
    });
    const spec = {
      origin: receiverUrl,
      path: '/baseline',
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'baseline',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,' + 'x'.repeat(44) + ' v1,' + 'y'.repeat(44),
      },
      body,
      connections: 32,
      warmupMs: warmupMs,
      durationMs: (flags.quick ? 4 : 10) * 1000,
      expectStatus: 200,
      expectText: 'ok',
    };
    return h.startLoad('baseline', spec, { pid: process.pid }).result;
  }

  async function runScenario(server, scenario) {
    const path = `/hook/${server.label}/${scenario.name.replace(/\W+/g, '-')}`;
    const route = { delayMs: scenario.delayMs, held: scenario.kind === 'backlog' ? [] : null };
    const endpoint = await endpointFor(server, path, route);
    const s = endpoint.stats;
    const from = server.next;
    const cpu0 = h.processCpuSeconds(server.child.pid);
    const result = { scenario: scenario.name, database: server.label, goal: scenario.goal };
    if (scenario.kind === 'rate') {
      const durationMs = warmupMs + scenario.measured * 1000;
      const start = performance.timeOrigin + performance.now();
      const emitted = await ask(
        server,
        {
          type: 'emit',
          organizationId: server.organizationId,
          rate: scenario.rate,
          durationMs,
          customers: CUSTOMERS,
          from,
        },
        'emitted',
      );
      server.next += emitted.count;
      await waitFor(s, emitted.count);
      const windowStart = start + warmupMs;
      const windowEnd = start + durationMs;
      const inWindow = s.arrivals.filter((t) => t >= windowStart && t <= windowEnd).length;
      const latencies = s.latencies.slice();
      for (let i = s.arrivals.length; i < emitted.count; i++) latencies.push(Infinity);
      latencies.sort((a, b) => a - b);
      Object.assign(result, {
        offeredPerSecond: scenario.rate,
        committed: emitted.count,
        deliveriesPerSecond: inWindow / scenario.measured,
        latencyMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1) },
      });
    } else {
      const ready = await ask(
        server,
        { type: 'backlog', organizationId: server.organizationId, count: scenario.count, customers: CUSTOMERS, from },
        'backlog-ready',
      );
      server.next += ready.count;
      // The endpoint comes back: the held deliveries are answered and everything after them at once.
      const released = performance.timeOrigin + performance.now();
      const held = route.held;
      route.held = null;
      routes.get(path).held = null;
      for (const answer of held) answer();
      // Long enough for the whole backlog at half the goal's rate, so the figure is the time to drain it all.
      await waitFor(s, scenario.count, Math.max(drainMs, (scenario.count / (scenario.goal.drainPerSecond / 2)) * 1000));
      const last = s.arrivals.length ? Math.max(...s.arrivals) : released;
      const after = s.arrivals.filter((t) => t >= released).length;
      Object.assign(result, {
        committed: scenario.count,
        drainPerSecond: after / ((last - released) / 1000),
        drainSeconds: (last - released) / 1000,
      });
    }
    const cpu1 = h.processCpuSeconds(server.child.pid);
    Object.assign(result, {
      delivered: s.arrivals.length,
      undelivered: result.committed - s.arrivals.length,
      duplicates: s.duplicates,
      unsigned: s.unsigned,
      violations: s.violations.length,
      violationSamples: s.violations.slice(0, 3),
      daemonCpuMicrosPerDelivery: s.arrivals.length ? ((cpu1 - cpu0) * 1e6) / s.arrivals.length : null,
    });
    // Every event of this scenario fanned out before its endpoint goes: rows the dispatcher had not reached would
    // otherwise be fanned out to the next scenario's endpoint (it subscribes to the same type) and count there.
    await ask(server, { type: 'settle' }, 'settled');
    await call(
      server.baseUrl,
      `/v1/webhooks/endpoints/${endpoint.id}`,
      { method: 'DELETE', headers: { authorization: `Bearer ${server.token}` } },
      204,
    );
    return result;
  }

  function met(r) {
    if (r.goal.perSecond) return r.deliveriesPerSecond >= r.goal.perSecond;
    if (r.goal.p99Ms) return r.latencyMs.p99 < r.goal.p99Ms;
    return r.drainPerSecond >= r.goal.drainPerSecond;
  }

  function report(results, pgVersion, load, baseline) {
    const widths = [12, 17, 9, 10, 9, 11, 9, 9, 10, 9, 8, 10, 8];
    const ratio = (r) => (r.deliveriesPerSecond ?? r.drainPerSecond) / baseline.rps;
    const ms = (v) => (v === Infinity ? 'undeliv.' : fmt(v, 1));
    const goalText = (g) =>
      g.perSecond ? `>= ${g.perSecond}/s` : g.p99Ms ? `p99 < ${g.p99Ms} ms` : `drain >= ${g.drainPerSecond}/s`;
    const lines = [
      '',
      `Webhooks to one endpoint (issue 20): events order.updated over ${CUSTOMERS} customers, written by the daemon's own process; Node ${process.version}, ${cpus().length} CPUs, PostgreSQL ${pgVersion ?? '-'}`,
      `Machine load average (1/5/15 min): before ${load.before.map((v) => v.toFixed(2)).join(' ')}, after ${load.after.map((v) => v.toFixed(2)).join(' ')}`,
      `Baseline: ${fmt(baseline.rps, 0)} plain POSTs/s to the receiver (32 connections, answered at once), p99 ${fmt(baseline.latencyMs?.p99, 2)} ms`,
      '',
      row(
        [
          'database',
          'scenario',
          'offered',
          'deliv./s',
          'drain/s',
          'x baseline',
          'p50 ms',
          'p99 ms',
          'max ms',
          'us/deliv',
          'undeliv',
          'order viol.',
          'goal',
        ],
        widths,
        '',
      ),
      ...results.map((r) =>
        row(
          [
            r.database,
            r.scenario,
            r.offeredPerSecond ? String(r.offeredPerSecond) : `${r.committed}`,
            fmt(r.deliveriesPerSecond, 0),
            fmt(r.drainPerSecond, 0),
            fmt(ratio(r), 3),
            r.latencyMs ? ms(r.latencyMs.p50) : '',
            r.latencyMs ? ms(r.latencyMs.p99) : '',
            r.latencyMs ? ms(r.latencyMs.max) : '',
            fmt(r.daemonCpuMicrosPerDelivery, 0),
            String(r.undelivered),
            String(r.violations),
            `${goalText(r.goal)} ${met(r) ? 'MET' : 'MISSED'}`,
          ],
          widths,
          '',
        ),
      ),
    ];
    const failures = results.flatMap((r) => [
      ...(r.violations
        ? [`${r.database} ${r.scenario}: ${r.violations} order violations: ${r.violationSamples.join(' | ')}`]
        : []),
      ...(r.unsigned ? [`${r.database} ${r.scenario}: ${r.unsigned} deliveries failed verification`] : []),
      ...(r.delivered === 0 ? [`${r.database} ${r.scenario}: nothing delivered`] : []),
    ]);
    if (failures.length) lines.push('', 'FAILED:', ...failures.map((f) => `  ${f}`));
    lines.push('');
    process.stdout.write(lines.join('\n') + '\n');
    process.stdout.write(
      JSON.stringify(
        { bench: 'webhooks-one-endpoint', ok: failures.length === 0, flags, load, baseline, results, failures },
        (k, v) => (v === Infinity ? 'lost' : v),
      ) + '\n',
    );
    return failures.length === 0 ? 0 : 1;
  }

  const load = { before: loadavg(), after: null };
  const id = `${process.pid}_${Date.now().toString(36)}`;
  const servers = [];
  let code = 1;
  try {
    let pgVersion = null;
    const results = [];
    h.log('baseline: plain POSTs to the receiver, 32 connections');
    const baseline = await runBaseline();
    for (const database of flags.only) {
      let dbUrl;
      if (database === 'sqlite') dbUrl = `sqlite:${join(h.makeTempDir('till-bench-webhooks-db-'), 'till.db')}`;
      else {
        pgVersion = (await h.withAdmin(flags.pgUrl, (client) => client.query('SHOW server_version'))).rows[0]
          .server_version;
        dbUrl = await h.createDatabase(flags.pgUrl, `bench_webhooks_one_${id}`);
      }
      const server = await startTill(dbUrl, database);
      servers.push(server);
      await setUpMerchant(server, `${database}-${id}`.replaceAll('_', '-'));
      const chosen = scenarios(flags.quick).filter(
        (scenario) => !flags.scenarios || flags.scenarios.some((name) => scenario.name.startsWith(name)),
      );
      for (const scenario of chosen) {
        h.log(`till on ${database}: ${scenario.name}`);
        results.push(await runScenario(server, scenario));
      }
      await h.stopChild(server.child);
      if (flags.cpuProf) {
        const { summarizeProfile } = await import('../auth/profile-summary.mjs');
        const dir = join(flags.cpuProf, database);
        for (const file of readdirSync(dir).filter((name) => name.endsWith('.cpuprofile')))
          process.stderr.write(`\nCPU profile (${database}): ${file}\n${summarizeProfile(join(dir, file), 30)}\n`);
      }
    }
    load.after = loadavg();
    code = report(results, pgVersion, load, baseline);
  } catch (error) {
    process.stderr.write(
      `bench:webhooks --one-endpoint: ${error instanceof h.BenchError ? error.message : (error.stack ?? error)}\n`,
    );
    for (const server of servers) h.logServerOutput(server.child);
  } finally {
    receiver.closeAllConnections();
    receiver.close();
    await h.cleanup(flags.pgUrl);
  }
  return code;
}
