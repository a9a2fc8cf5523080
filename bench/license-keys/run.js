#!/usr/bin/env node
// License-key benchmark: the public POST /v1/customer-portal/license-keys/validate against 100,000 keys, on SQLite and
// on PostgreSQL, and a bare Koa app's GET in the same run as the baseline. Runs on bench/auth's harness (processes,
// databases, the load generator load.mjs, with `bodies` so each request names another key, clean-up), its daemon
// launcher (till-server.mjs), bare Koa app (koa-server.mjs) and table helpers (report.mjs).
// Prints a table, the ratios against bare Koa and the goal (>= 5,000 validations/s on SQLite, p99 < 20 ms), then one
// JSON line. `npm run build && npm run bench:license-keys [-- --quick | --keys n | --rounds n | --duration s |
// --connections n | --only sqlite,postgres | --pg-url URL | --cpu-prof DIR (the daemons' V8 profiles)]`
import { randomBytes, randomUUID, createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import {
  BenchError,
  EXIT_WITH_PARENT,
  HERE as AUTH_BENCH,
  ROOT,
  cleanup,
  createDatabase,
  freePort,
  log,
  logServerOutput,
  makeTempDir,
  requestText,
  startChild,
  startLoad,
  stopChild,
  tillEnv,
  waitUntilReady,
} from '../auth/harness.mjs';
import { fmt, median, row } from '../auth/report.mjs';

const GOAL_RPS = 5000;
const GOAL_P99_MS = 20;
const DATABASES = ['sqlite', 'postgres'];

function options(argv) {
  const flags = {
    keys: 100_000,
    duration: 10,
    warmup: 2,
    connections: 32,
    rounds: 3,
    only: DATABASES,
    pgUrl: process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/test',
    cpuProf: null,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') Object.assign(flags, { duration: 3, warmup: 1, rounds: 1 });
    else if (arg === '--pg-url') flags.pgUrl = argv[++i];
    else if (arg === '--cpu-prof') flags.cpuProf = argv[++i];
    else if (arg === '--only') flags.only = argv[++i].split(',').filter((db) => DATABASES.includes(db));
    else if (/^--(keys|duration|warmup|connections|rounds)$/.test(arg) && Number(argv[i + 1]) > 0)
      flags[arg.slice(2)] = Number(argv[++i]);
    else {
      process.stderr.write(
        `bench:license-keys: unknown option ${arg}\nOptions: --keys <n> --duration <s> --warmup <s> --connections <n> --rounds <n> --only sqlite,postgres --pg-url <url> --cpu-prof <dir> --quick\n`,
      );
      process.exit(2);
    }
  }
  return flags;
}

async function json(baseUrl, path, init = {}, expect = 200) {
  const { status, text } = await requestText(baseUrl, path, init);
  if (status !== expect)
    throw new BenchError(
      `${init.method ?? 'GET'} ${path} answered ${status} (expected ${expect}): ${text.slice(0, 400)}`,
    );
  return JSON.parse(text);
}

async function startTill(env, label, cpuProf = null) {
  const child = startChild(`till on ${label}`, join(AUTH_BENCH, 'till-server.mjs'), [], {
    env,
    execArgv: [...EXIT_WITH_PARENT, ...(cpuProf ? ['--cpu-prof', '--cpu-prof-dir', cpuProf] : [])],
  });
  const baseUrl = `http://127.0.0.1:${env.TILL_PORT}`;
  await waitUntilReady(child, baseUrl);
  return { child, baseUrl };
}

/** A merchant, a customer and a license_keys benefit, made over HTTP as a user would. */
async function setUp(baseUrl, id) {
  const signUp = await json(baseUrl, '/api/auth/sign-up/email', {
    method: 'POST',
    body: { name: 'Bench', email: `bench-${id}@example.com`, password: 'correct horse battery staple' },
  });
  const bearer = { authorization: `Bearer ${signUp.token}` };
  const org = await json(baseUrl, '/api/auth/organization/create', {
    method: 'POST',
    headers: bearer,
    body: { name: 'Bench', slug: `bench-${id}` },
  });
  const customer = await json(
    baseUrl,
    '/v1/customers/',
    { method: 'POST', headers: bearer, body: { email: `buyer-${id}@example.com`, organization_id: org.id } },
    201,
  );
  const benefit = await json(
    baseUrl,
    '/v1/benefits/',
    {
      method: 'POST',
      headers: bearer,
      body: { type: 'license_keys', description: 'Bench license', organization_id: org.id, properties: {} },
    },
    201,
  );
  return { organizationId: org.id, customerId: customer.id, benefitId: benefit.id };
}

/**
 * Writes the keys straight into the database, as the license_keys strategy would (digest for the lookup, key sealed
 * under the daemon's secret), in batches: handing out 100,000 keys through purchases would take far longer than the
 * measurement.
 */
async function seedKeys(dbUrl, secret, shop, count) {
  const dist = new URL('../../dist/src/', import.meta.url);
  const { createDb } = await import(new URL('core/database/index.js', dist).href);
  const { createSecretBox } = await import(new URL('core/kernel/secret-box.js', dist).href);
  const box = createSecretBox(secret);
  const db = createDb(dbUrl);
  const keys = [];
  try {
    const now = new Date();
    for (let start = 0; start < count; start += 500) {
      const rows = [];
      for (let i = start; i < Math.min(count, start + 500); i++) {
        const id = randomUUID();
        const key = `BENCH-${randomUUID().toUpperCase()}`;
        keys.push(key);
        rows.push({
          id,
          organization_id: shop.organizationId,
          customer_id: shop.customerId,
          benefit_id: shop.benefitId,
          key_digest: createHash('sha256').update(key).digest('hex'),
          key_sealed: box.seal(key, `license_keys.key:${id}`),
          display_key: `****-${key.slice(-6)}`,
          status: 'granted',
          activations: 0,
          usage: 0,
          validations: 0,
          created_at: now,
        });
      }
      await db('license_keys').insert(rows);
    }
  } finally {
    await db.destroy();
  }
  return keys;
}

const KOA = 'bare Koa  GET constant JSON';
const label = (db) => `Till on ${db === 'sqlite' ? 'SQLite' : 'PostgreSQL'}  validate`;

function report(flags, rounds) {
  const results = Object.fromEntries([...rounds].map(([name, list]) => [name, median(list, (r) => r.rps)]));
  const failed = [...rounds].flatMap(([name, list]) =>
    list
      .filter((r) => r.errors > 0 || r.requests === 0)
      .map((r) => `${name}: ${r.errors} errors ${r.badSamples.join(' | ')}`),
  );
  const ratios = Object.fromEntries(flags.only.map((db) => [db, results[label(db)].rps / results[KOA].rps]));
  const widths = [40, 9, 9, 9, 12, 8];
  const sqlite = results[label('sqlite')];
  const met = sqlite ? sqlite.rps >= GOAL_RPS && sqlite.latencyMs.p99 < GOAL_P99_MS : null;
  const lines = [
    '',
    `License-key benchmark: ${flags.keys} keys, ${flags.connections} connections, ${flags.warmup} s warm-up + ${flags.duration} s, ` +
      `median of ${flags.rounds} round(s); Node ${process.version}, ${cpus().length} CPUs`,
    '',
    row(['scenario', 'req/s', 'p50 ms', 'p99 ms', 'CPU us/req', 'errors'], widths, ''),
    ...Object.entries(results).map(([name, r]) =>
      row(
        [
          name,
          fmt(r.rps, 0),
          fmt(r.latencyMs.p50, 2),
          fmt(r.latencyMs.p99, 2),
          fmt(r.serverCpuMicrosPerRequest, 0),
          String(r.errors),
        ],
        widths,
        '',
      ),
    ),
    '',
    ...flags.only.map((db) => `${label(db)} / bare Koa req/s: ${fmt(ratios[db], 3)}`),
    ...(sqlite
      ? [
          `SQLite: ${fmt(sqlite.rps, 0)} validations/s (goal >= ${GOAL_RPS}), p99 ${fmt(sqlite.latencyMs.p99, 2)} ms (goal < ${GOAL_P99_MS})   ${met ? 'MET' : 'MISSED'}`,
        ]
      : []),
    ...(failed.length ? ['', 'FAILED:', ...failed.map((line) => `  ${line}`)] : []),
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
  const out = {
    bench: 'license-keys',
    ok: failed.length === 0,
    config: { ...flags, node: process.version, cpus: cpus().length },
    results,
    ratiosOverKoa: ratios,
    goal: { rps: GOAL_RPS, p99Ms: GOAL_P99_MS },
    met,
    failures: failed,
  };
  process.stdout.write(JSON.stringify(out) + '\n');
  return failed.length === 0 ? 0 : 1;
}

async function main(flags) {
  if (!existsSync(join(ROOT, 'dist/src/daemon/server.js')))
    throw new Error('dist/ is missing: run `npm run build` first');
  const id = `${process.pid}-${randomBytes(3).toString('hex')}`;
  const servers = {};
  try {
    for (const db of flags.only) {
      const dbUrl =
        db === 'sqlite'
          ? `sqlite:${join(makeTempDir('till-bench-lk-db-'), 'till.db')}`
          : await createDatabase(flags.pgUrl, `bench_lk_${id.replace('-', '_')}`);
      const env = tillEnv({ dbUrl, port: await freePort(), dataDir: makeTempDir('till-bench-lk-') });
      let till = await startTill(env, db);
      const shop = await setUp(till.baseUrl, `${db}-${id}`);
      // SQLite is one daemon per file, held with a lock: the keys go in while the daemon is stopped.
      await stopChild(till.child);
      log(`seeding ${flags.keys} keys on ${db}`);
      const keys = await seedKeys(dbUrl, env.TILL_SECRET, shop, flags.keys);
      till = await startTill(env, db, flags.cpuProf);
      const bodies = keys.map((key) => JSON.stringify({ key, organization_id: shop.organizationId }));
      const check = await json(till.baseUrl, '/v1/customer-portal/license-keys/validate', {
        method: 'POST',
        body: { key: keys[0], organization_id: shop.organizationId },
      });
      if (check.status !== 'granted') throw new BenchError(`validate answered ${JSON.stringify(check)}`);
      servers[db] = { ...till, bodies };
    }
    const koaPort = await freePort();
    const koa = startChild('bare koa', join(AUTH_BENCH, 'koa-server.mjs'), [], {
      env: { ...process.env, KOA_PORT: String(koaPort) },
    });
    const koaUrl = `http://127.0.0.1:${koaPort}`;
    await waitUntilReady(koa, koaUrl);
    servers.koa = { child: koa };
    const common = { connections: flags.connections, warmupMs: flags.warmup * 1000, durationMs: flags.duration * 1000 };
    const rounds = new Map([[KOA, []], ...flags.only.map((db) => [label(db), []])]);
    for (let round = 1; round <= flags.rounds; round++) {
      log(`${KOA} (round ${round}/${flags.rounds})`);
      const koaSpec = { ...common, origin: koaUrl, path: '/api/auth/get-session', method: 'GET', expectStatus: 200 };
      rounds.get(KOA).push(await startLoad(KOA, koaSpec, koa).result);
      for (const db of flags.only) {
        log(`${label(db)} (round ${round}/${flags.rounds})`);
        const spec = {
          ...common,
          origin: servers[db].baseUrl,
          path: '/v1/customer-portal/license-keys/validate',
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          bodies: servers[db].bodies,
          expectStatus: 200,
          expectText: '"status":"granted"',
        };
        rounds.get(label(db)).push(await startLoad(label(db), spec, servers[db].child).result);
      }
    }
    return report(flags, rounds);
  } finally {
    for (const server of Object.values(servers)) {
      await stopChild(server.child);
      if (server.baseUrl) logServerOutput(server.child);
    }
    await cleanup(flags.pgUrl);
  }
}

main(options(process.argv.slice(2))).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(
      `bench:license-keys: ${error instanceof BenchError ? error.message : (error?.stack ?? error)}\n`,
    );
    process.exit(1);
  },
);
