// What one ingestion transaction costs per event on SQLite, by how many batches of 1,000 it writes together (1, 2, 4,
// 8; alternating in one run, so load on the machine falls on all alike): building the statements in JavaScript, and
// SQLite running them with their COMMIT. The daemon's ingestion without HTTP, validation or lookups.
// `npm run build && node bench/events/group-cost.mjs` (N=400 rounds by default).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
const D = new URL('../../dist/src/core', import.meta.url).href;
const { createDb, migrateLatest } = await import(`${D}/database/index.js`);
const { eventsRepository } = await import(`${D}/events/repository.js`);
const { meterAggregatesRepository } = await import(`${D}/meters/aggregates-repository.js`);
const { aggregateBatch, compileMeter } = await import(`${D}/meters/aggregates.js`);
const { compileDeferred } = await import(`${D}/database/deferred.js`);
const { inlineStatements } = await import(`${D}/database/sqlite/literals.js`);
const { uuidv7 } = await import(`${D}/kernel/ids.js`);
const dir = mkdtempSync(join(tmpdir(), 'till-group-cost-'));
const db = createDb(`sqlite:${join(dir, 't.db')}`);
await migrateLatest(db);
const org = 'org_1';
// The meters exist only as compiled predicates: no meter rows for the aggregates' foreign keys.
await db.raw('PRAGMA foreign_keys = OFF');
const METERS = [
  {
    filter: { conjunction: 'and', clauses: [{ property: 'name', operator: 'eq', value: 'api.call' }] },
    aggregation: { func: 'count' },
  },
  {
    filter: {
      conjunction: 'and',
      clauses: [
        { property: 'name', operator: 'eq', value: 'llm' },
        { property: 'model', operator: 'like', value: 'gpt' },
      ],
    },
    aggregation: { func: 'sum', property: 'tokens' },
  },
  {
    filter: {
      conjunction: 'and',
      clauses: [
        { property: 'name', operator: 'eq', value: 'api.call' },
        { property: 'status', operator: 'lt', value: 500 },
      ],
    },
    aggregation: { func: 'max', property: 'latency_ms' },
  },
  {
    filter: {
      conjunction: 'or',
      clauses: [
        { property: 'name', operator: 'eq', value: 'llm' },
        {
          conjunction: 'and',
          clauses: [
            { property: 'name', operator: 'eq', value: 'embed' },
            { property: 'tokens', operator: 'gt', value: 100 },
          ],
        },
      ],
    },
    aggregation: { func: 'avg', property: 'tokens' },
  },
  {
    filter: { conjunction: 'and', clauses: [{ property: 'name', operator: 'ne', value: 'embed' }] },
    aggregation: { func: 'unique', property: 'region' },
  },
].map((m) => ({ ...m, id: randomUUID() }));
const customers = Array.from({ length: 10000 }, () => randomUUID());
const names = ['api.call', 'api.call', 'llm', 'embed'],
  models = ['gpt-5', 'gpt-4o', 'claude'],
  regions = ['eu', 'us', 'ap', 'sa', 'af'];
const start = Date.now() - 6 * 3600_000;
let k = 0;
function batch() {
  const now = Date.now();
  return Array.from({ length: 1000 }, () => {
    k++;
    const i = (k * 7919) % customers.length;
    const name = names[k % 4];
    return {
      id: uuidv7(now),
      organizationId: org,
      customerId: customers[i],
      externalCustomerId: `user-${i}`,
      memberId: null,
      externalMemberId: null,
      name,
      source: 'user',
      timestamp: start + ((k * 997) % (6 * 3600_000)),
      ingestedAt: now,
      externalId: null,
      parentId: null,
      metadata:
        name === 'api.call'
          ? { latency_ms: (k * 31) % 900, status: k % 17 === 0 ? 503 : 200, region: regions[k % 5] }
          : { tokens: (k * 13) % 4000, model: models[k % 3], region: regions[k % 5] },
    };
  });
}
const conn = await db.client.acquireConnection();
const exec = (sql) => new Promise((res, rej) => conn.exec(sql, (e) => (e ? rej(e) : res())));
const compiled = METERS.map((m) => compileMeter(m));
const cost = { 1: {}, 2: {}, 4: {}, 8: {} };
const N = Number(process.env.N || 400);
for (let b = 0; b < N; b++) {
  const group = [1, 2, 4, 8][b % 4];
  const c = cost[group];
  for (let rep = 0; rep < 8 / group; rep++) {
    const rows = Array.from({ length: group }, () => batch()).flat();
    const t0 = performance.now();
    const deltas = aggregateBatch(compiled, rows);
    const statements = [
      ...eventsRepository(db).deferInsert(rows),
      ...meterAggregatesRepository(db).deferAdd(deltas, new Date()),
    ];
    const sql = inlineStatements(compileDeferred(statements));
    const t1 = performance.now();
    c.js = (c.js ?? 0) + (t1 - t0);
    await exec(['BEGIN', ...sql, 'COMMIT'].join(';\n'));
    c.sqlite = (c.sqlite ?? 0) + (performance.now() - t1);
    c.events = (c.events ?? 0) + rows.length;
  }
}
for (const [g, c] of Object.entries(cost))
  console.log(
    `group ${g}: js ${((1000 * c.js) / c.events).toFixed(1)} µs/event, sqlite ${((1000 * c.sqlite) / c.events).toFixed(1)} µs/event over ${c.events}`,
  );
await db.client.releaseConnection(conn);
await db.destroy();
rmSync(dir, { recursive: true, force: true });
