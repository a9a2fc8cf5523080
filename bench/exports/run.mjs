#!/usr/bin/env node
// CSV export benchmark (issue 22): `GET /v1/orders/export` of 1,000,000 orders from a daemon, on SQLite and
// PostgreSQL. A daemon from dist/ (bench/auth/till-server.mjs) makes a merchant and an organization over HTTP; it is
// stopped (SQLite is one daemon per file) while bench/metrics' seed writes the orders (and 2,000 customers to join)
// straight into the tables; it is started again and the export read to the end while the daemon's resident memory is
// sampled every 100 ms from /proc. Prints rows/s, bytes, the daemon's CPU time over the export (and per row), and
// the RSS before, at its peak and across the export (its first and last tenths), then one JSON line.
// `npm run build && node bench/exports/run.mjs [--orders n] [--only sqlite,postgres] [--pg-url url] [--no-analyze]`
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  EXIT_WITH_PARENT,
  HERE as AUTH_BENCH,
  cleanup,
  createDatabase,
  freePort,
  log,
  makeTempDir,
  memoryOf,
  processCpuSeconds,
  requestText,
  startChild,
  stopChild,
  tillEnv,
  waitUntilReady,
} from '../auth/harness.mjs';
import { createDb } from '../../dist/src/core/database/index.js';
import { seed } from '../metrics/run.mjs';

function options(argv) {
  const flags = { orders: 1_000_000, only: ['sqlite', 'postgres'], pgUrl: process.env.BENCH_PG_URL, analyze: true };
  for (let i = 0; i < argv.length; i++) {
    const next = () => argv[++i];
    if (argv[i] === '--orders') flags.orders = Number(next());
    else if (argv[i] === '--only') flags.only = next().split(',');
    else if (argv[i] === '--pg-url') flags.pgUrl = next();
    // As right after a bulk load or a pg_restore, before autovacuum has analyzed the tables.
    else if (argv[i] === '--no-analyze') flags.analyze = false;
    else throw new Error(`unknown option ${argv[i]}`);
  }
  flags.pgUrl ??= 'postgres://postgres@127.0.0.1:5432/test';
  return flags;
}

async function json(baseUrl, path, init) {
  const { status, text } = await requestText(baseUrl, path, init);
  if (status >= 300) throw new Error(`${init?.method ?? 'GET'} ${path} answered ${status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

async function startTill(env, label) {
  const child = startChild(`till on ${label}`, join(AUTH_BENCH, 'till-server.mjs'), [], {
    env,
    execArgv: EXIT_WITH_PARENT,
  });
  const baseUrl = `http://127.0.0.1:${env.TILL_PORT}`;
  await waitUntilReady(child, baseUrl);
  return { child, baseUrl };
}

/** Reads the whole export, counting lines and bytes, while sampling the daemon's RSS. */
async function exportOnce(baseUrl, token, organizationId, pid) {
  const samples = [];
  const sample = () => samples.push(memoryOf(pid).rssMb);
  sample();
  const timer = setInterval(sample, 100);
  const cpuBefore = processCpuSeconds(pid);
  const started = performance.now();
  let bytes = 0;
  let lines = 0;
  try {
    const response = await fetch(`${baseUrl}/v1/orders/export?organization_id=${organizationId}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (response.status !== 200) throw new Error(`export answered ${response.status}: ${await response.text()}`);
    const reader = response.body.getReader();
    for (;;) {
      const { done, value: chunk } = await reader.read();
      if (done) break;
      bytes += chunk.length;
      for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines += 1;
    }
  } finally {
    clearInterval(timer);
  }
  const seconds = (performance.now() - started) / 1000;
  const daemonCpuSeconds = processCpuSeconds(pid) - cpuBefore;
  sample();
  const tenth = Math.max(1, Math.floor(samples.length / 10));
  const mean = (list) => list.reduce((sum, value) => sum + value, 0) / list.length;
  return {
    rows: lines - 1,
    bytes,
    seconds,
    rowsPerSecond: (lines - 1) / seconds,
    daemonCpuSeconds,
    daemonCpuMicrosPerRow: (daemonCpuSeconds * 1e6) / (lines - 1),
    rssBeforeMb: samples[0],
    rssPeakMb: Math.max(...samples),
    rssFirstTenthMb: mean(samples.slice(1, 1 + tenth)),
    rssLastTenthMb: mean(samples.slice(-tenth - 1, -1)),
    samples: samples.length,
  };
}

async function benchOne(dialect, flags, id) {
  const dbUrl =
    dialect === 'sqlite'
      ? `sqlite:${join(makeTempDir('till-bench-exports-db-'), 'till.db')}`
      : await createDatabase(flags.pgUrl, `bench_exports_${id}`);
  const env = tillEnv({ dbUrl, port: await freePort(), dataDir: makeTempDir('till-bench-exports-') });
  let till = await startTill(env, dialect);
  const signUp = await json(till.baseUrl, '/api/auth/sign-up/email', {
    method: 'POST',
    body: { name: 'Bench', email: `bench-${id}@example.com`, password: 'correct horse battery staple' },
  });
  const org = await json(till.baseUrl, '/api/auth/organization/create', {
    method: 'POST',
    headers: { authorization: `Bearer ${signUp.token}` },
    body: { name: 'Bench', slug: `bench-${id}` },
  });
  await stopChild(till.child);
  log(`${dialect}: seeding ${flags.orders} orders…`);
  const db = createDb(dbUrl);
  const started = performance.now();
  try {
    await seed(db, dialect, flags.orders, org.id, { analyze: flags.analyze });
  } finally {
    await db.destroy();
  }
  const seedSeconds = (performance.now() - started) / 1000;
  till = await startTill(env, dialect);
  try {
    log(`${dialect}: exporting…`);
    const result = await exportOnce(till.baseUrl, signUp.token, org.id, till.child.pid);
    if (result.rows !== flags.orders) throw new Error(`the export had ${result.rows} rows, not ${flags.orders}`);
    return { dialect, orders: flags.orders, seedSeconds, ...result };
  } finally {
    await stopChild(till.child);
  }
}

async function main() {
  const flags = options(process.argv.slice(2));
  const id = `${process.pid}_${randomBytes(3).toString('hex')}`;
  const results = [];
  try {
    for (const dialect of flags.only) {
      const r = await benchOne(dialect, flags, id);
      results.push(r);
      const mb = (n) => `${n.toFixed(0)} MB`;
      log(
        `${dialect}: ${r.rows} rows, ${(r.bytes / 1e6).toFixed(0)} MB of CSV in ${r.seconds.toFixed(1)} s = ` +
          `${r.rowsPerSecond.toFixed(0)} rows/s; daemon CPU ${r.daemonCpuSeconds.toFixed(1)} s ` +
          `(${r.daemonCpuMicrosPerRow.toFixed(1)} µs/row); daemon RSS before ${mb(r.rssBeforeMb)}, first tenth ` +
          `${mb(r.rssFirstTenthMb)}, last tenth ${mb(r.rssLastTenthMb)}, peak ${mb(r.rssPeakMb)} (seed ${r.seedSeconds.toFixed(0)} s)`,
      );
    }
    console.log(JSON.stringify({ bench: 'exports', results }));
  } finally {
    await cleanup(flags.pgUrl);
  }
}

await main();
