import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreContext } from '../../src/core/context.js';
import { createDb, transaction } from '../../src/core/database/index.js';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { createOperations } from '../../src/core/operations/service.js';
import { createLogger } from '../../src/daemon/logger.js';
import { createMetrics } from '../../src/daemon/ops/metrics.js';
import { adminToken } from '../../src/core/kernel/crypto.js';
import { withRequestId } from '../../src/core/kernel/request-context.js';
import { schedule } from '../../src/core/scheduler/schedule.js';
import { createProduct } from '../helpers/catalog.js';
import { startTestDaemon, TEST_SECRET, useTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';
import { createMerchant } from '../helpers/v1.js';

const daemon = useTestDaemon();
const admin = () => new TestClient(daemon().url, { headers: { authorization: `Bearer ${adminToken(TEST_SECRET)}` } });

/** The value of one sample line (`name{labels} value`) whose name and labels contain every fragment given. */
function sample(text: string, ...fragments: string[]): number | null {
  const line = text.split('\n').find((l) => !l.startsWith('#') && fragments.every((f) => l.includes(f)));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : null;
}

describe('health and readiness', () => {
  it('/healthz answers while the process runs, /readyz once the database answers and is migrated', async () => {
    const client = new TestClient(daemon().url);
    const health = await client.get('/healthz');
    expect(health.status).toBe(200);
    expect(health.json).toEqual({ status: 'ok' });
    const ready = await client.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.json).toEqual({ status: 'ok' });
  });

  it('/readyz answers 503 with a reason when a migration is not applied', async () => {
    const other = await startTestDaemon();
    try {
      await other.core.db('knex_migrations').where('name', '20261215000000_request_ids').del();
      const ready = await new TestClient(other.url).get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.json).toMatchObject({ status: 'unavailable' });
      expect(ready.json.reason).toContain('20261215000000_request_ids');
    } finally {
      await other.stop();
    }
  });
});

describe('GET /metrics (TILL_METRICS=admin, the default)', () => {
  it('needs the admin token', async () => {
    expect((await new TestClient(daemon().url).get('/metrics')).status).toBe(401);
    const wrong = new TestClient(daemon().url, { headers: { authorization: 'Bearer nope' } });
    expect((await wrong.get('/metrics')).status).toBe(401);
  });

  it('counts requests by route template and status, never by raw URL', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    expect((await merchant.api.get(`/v1/products/${product.id}`)).status).toBe(200);
    const response = await admin().get('/metrics');
    expect(response.status).toBe(200);
    expect(String(response.headers['content-type'])).toContain('text/plain');
    const text = response.text;
    expect(sample(text, 'till_http_requests_total{', 'route="/v1/products/:id"', 'status="200"', 'GET')).toBe(1);
    expect(sample(text, 'till_http_request_duration_seconds_count{', 'route="/v1/products/:id"')).toBe(1);
    expect(text).not.toContain(product.id);
    expect(sample(text, 'till_http_requests_total{', 'route="/metrics"', 'status="401"')).toBe(2);
    // Process metrics from prom-client's defaults.
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('reports the outbox, webhook backlog, scheduler, mail and pool from the database at scrape time', async () => {
    // A database no daemon works on, so no worker drains what the test puts there before the scrape.
    const source = await startTestDaemon();
    const merchant = await createMerchant(source);
    await source.close();
    const db = createDb(source.database.url);
    const clock = new ManualClock(source.clock.now());
    const ago = (ms: number) => new Date(clock.now().getTime() - ms);
    const endpointId = '01900000-0000-7000-8000-0000000000e1';
    try {
      await db('outbox_events').insert(
        [1, 2].map((n) => ({
          id: `01900000-0000-7000-8000-00000000000${n}`,
          organization_id: merchant.organization.id,
          type: 'product.updated',
          payload: '{}',
          created_at: ago(90_000 - n),
        })),
      );
      await db('webhook_endpoints').insert({
        id: endpointId,
        organization_id: merchant.organization.id,
        url: 'https://example.com/hook',
        format: 'raw',
        secret: 'sealed',
        events: '[]',
        enabled: true,
        created_at: ago(0),
      });
      await db('webhook_events').insert({
        id: '01900000-0000-7000-8000-0000000000f1',
        organization_id: merchant.organization.id,
        endpoint_id: endpointId,
        seq: 1,
        type: 'product.updated',
        payload: '{}',
        status: 'pending',
        attempts: 0,
        next_attempt_at: ago(30_000),
        created_at: ago(30_000),
      });
      await transaction(db, (trx) =>
        schedule(trx, { kind: 'ops.test', subjectId: 'x', dueAt: ago(3_600_000) }, ago(0)),
      );
      const operations = createOperations({ db, clock });
      const core = { db, webhooks: { onAttempt: () => () => undefined } } as unknown as CoreContext;
      const metrics = createMetrics(core, operations);
      const text = await metrics.render();
      metrics.close();
      expect(sample(text, 'till_outbox_depth ')).toBe(2);
      expect(sample(text, 'till_outbox_oldest_seconds ')).toBeCloseTo(90, 0);
      expect(sample(text, 'till_webhook_pending_events{', endpointId)).toBe(1);
      expect(sample(text, 'till_webhook_delivery_lag_seconds{', endpointId)).toBeCloseTo(30, 0);
      expect(sample(text, 'till_scheduler_due_jobs ')).toBe(1);
      expect(sample(text, 'till_scheduler_lag_seconds ')).toBeCloseTo(3600, 0);
      expect(sample(text, 'till_mail_queue_depth ')).toBe(0);
      expect(sample(text, 'till_db_pool_connections{', 'state="used"')).not.toBeNull();
      expect(sample(text, 'till_db_pool_connections{', 'state="pending"')).toBe(0);
    } finally {
      await db.destroy();
      await source.database.drop();
    }
  });
});

describe('GET /metrics on a listener of its own (TILL_METRICS=<host>:<port>)', () => {
  let own: TestDaemon;
  let port: number;
  beforeAll(async () => {
    // A port found free a moment ago; the listener binds it itself.
    const probe = (await import('node:net')).createServer();
    port = await new Promise<number>((resolve) =>
      probe.listen(0, '127.0.0.1', () => resolve((probe.address() as { port: number }).port)),
    );
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    own = await startTestDaemon({ metrics: { mode: 'listen', host: '127.0.0.1', port } });
  });
  afterAll(() => own.stop());

  it('answers there without a token, and not on the public listener', async () => {
    const response = await request(`http://127.0.0.1:${port}/metrics`);
    expect(response.statusCode).toBe(200);
    expect(await response.body.text()).toContain('till_outbox_depth');
    const elsewhere = await request(`http://127.0.0.1:${port}/healthz`);
    expect(elsewhere.statusCode).toBe(404);
    await elsewhere.body.dump();
    const publicly = await new TestClient(own.url, {
      headers: { authorization: `Bearer ${adminToken(TEST_SECRET)}` },
    }).get('/metrics');
    expect(publicly.status).toBe(404);
  });
});

describe('request ids', () => {
  it('echo a well-formed X-Request-Id and replace a malformed or overlong one', async () => {
    const client = new TestClient(daemon().url);
    const kept = await client.get('/healthz', { headers: { 'x-request-id': 'abc-123.DEF:4' } });
    expect(kept.headers['x-request-id']).toBe('abc-123.DEF:4');
    for (const bad of ['line\\nbreak', 'x'.repeat(129), 'a b', '"quoted"', '<script>']) {
      const replaced = await client.get('/healthz', { headers: { 'x-request-id': bad } });
      expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
    const generated = await client.get('/healthz');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('are stored with the outbox events, scheduled jobs and mails a request causes', async () => {
    const d = daemon();
    const merchant = await createMerchant(d);
    const created = await merchant.api.post(
      '/v1/products/',
      { name: 'Traced', prices: [{ amount_type: 'fixed', price_amount: 500, price_currency: 'usd' }] },
      { headers: { 'x-request-id': 'trace-product-1' } },
    );
    expect(created.status).toBe(201);
    const events = await d.core.db('outbox_events').where({ request_id: 'trace-product-1' }).select('type');
    expect(events.map((row) => row.type)).toContain('product.created');

    const checkout = await merchant.api.post(
      '/v1/checkouts/',
      { products: [created.json.id] },
      { headers: { 'x-request-id': 'trace-checkout-1' } },
    );
    expect(checkout.status).toBe(201);
    const job = await d.core.db('scheduled_jobs').where({ subject_id: checkout.json.id }).first();
    expect(job.request_id).toBe('trace-checkout-1');

    const reset = await new TestClient(d.url).post(
      '/api/auth/request-password-reset',
      { email: merchant.owner.email },
      { headers: { 'x-request-id': 'trace-reset-1' } },
    );
    expect(reset.status).toBe(200);
    await d.core.background.settled();
    const mail = await d.core.db('mails').where({ request_id: 'trace-reset-1' }).first();
    expect(mail?.kind).toBeDefined();
  });

  it('are in the log lines written under them, including those of the worker running a job a request caused', async () => {
    const lines: string[] = [];
    const logger = createLogger('debug', (line) => lines.push(line));
    withRequestId('trace-log-1', () => logger.info('inside'));
    logger.info('outside');
    expect(JSON.parse(lines[0]!)).toMatchObject({ message: 'inside', requestId: 'trace-log-1' });
    expect(JSON.parse(lines[1]!).requestId).toBeUndefined();

    // The scheduler runs each job under the request id stored with it, so its worker's failure line carries it.
    const d = daemon();
    const failures: string[] = [];
    const unsubscribe = d.core.scheduler.onFailure((failure) => {
      if (failure.job.subjectId === 'job-1') logger.warn('scheduled job failed', { kind: failure.job.kind });
      failures.push(failure.job.subjectId);
    });
    await withRequestId('trace-job-1', () =>
      transaction(d.core.db, (trx) =>
        schedule(trx, { kind: 'ops.unhandled', subjectId: 'job-1', dueAt: d.clock.now() }, d.clock.now()),
      ),
    );
    const stored = await d.core.db('scheduled_jobs').where({ subject_id: 'job-1' }).first();
    expect(stored.request_id).toBe('trace-job-1');
    await d.core.scheduler.drain();
    unsubscribe();
    expect(failures).toContain('job-1');
    expect(lines.map((line) => JSON.parse(line))).toContainEqual(
      expect.objectContaining({ message: 'scheduled job failed', requestId: 'trace-job-1' }),
    );
  });
});
