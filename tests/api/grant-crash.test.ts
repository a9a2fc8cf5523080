import type { ResultPromise } from 'execa';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../src/core/database/index.js';
import { adminToken } from '../../src/core/kernel/crypto.js';
import { createCheckout, createProduct } from '../helpers/catalog.js';
import { TEST_SECRET } from '../helpers/daemon.js';
import { crashableDaemon } from '../helpers/crash-daemon.js';
import { TestClient } from '../helpers/http.js';
import { buyerEmail } from '../helpers/purchases.js';
import { createMerchant } from '../helpers/v1.js';

const admin = { headers: { authorization: `Bearer ${adminToken(TEST_SECRET)}` } };

/**
 * A real daemon process (the built dist/) SIGKILLed at `grant.granted`: the grant job's license key strategy has
 * issued a key inside the job's transaction, nothing is committed. Started again, the job is retaken (at once on
 * SQLite, whose one daemon releases the dead one's claims; after the lease on PostgreSQL) and done once: one key,
 * each grant granted once, one `benefit_grant.created` per grant, no job left.
 */
describe('a daemon killed in the middle of a grant job', () => {
  it('completes the grants exactly once after the restart', async () => {
    const crash = await crashableDaemon('till-grant-crash-', { TILL_CLOCK: 'simulated' });
    const { daemon, url, databaseUrl } = crash;
    const start = (env: Record<string, string>) => crash.start(env);
    let child: ResultPromise | null = null;
    const clock = new TestClient(url);
    try {
      child = (await start({ TILL_TEST_CRASH_AT: 'grant.granted' })).process;
      const merchant = await createMerchant(daemon);
      const keys = await merchant.api.post('/v1/benefits/', {
        type: 'license_keys',
        description: 'App license',
        properties: { prefix: 'APP', limit_usage: 10 },
      });
      const note = await merchant.api.post('/v1/benefits/', {
        type: 'custom',
        description: 'Thanks',
        properties: { note: 'Thank you' },
      });
      expect(keys.status, keys.text).toBe(201);
      const product = await createProduct(merchant);
      await merchant.api.post(`/v1/products/${product.id}/benefits`, { benefits: [keys.json.id, note.json.id] });
      const checkout = await createCheckout(merchant, [product.id], { customer_email: buyerEmail() });
      // The grant job runs as soon as the order commits: the daemon may die before it answers the confirm.
      await new TestClient(url)
        .post(`/v1/checkouts/client/${checkout.client_secret}/confirm`, {
          customer_billing_address: { country: 'DE' },
          confirmation_token_id: 'tok_visa',
        })
        .catch(() => null);
      await clock.post('/api/admin/clock', { advance_seconds: 1 }, admin).catch(() => null);
      expect((await child).signal).toBe('SIGKILL');
      // Killed mid-run: the paid order is there, its grant job claimed, and nothing the job wrote survived.
      const dead = createDb(databaseUrl);
      try {
        const [order] = await dead('orders').where({ checkout_id: checkout.id });
        expect(await dead('benefit_grants').where({ order_id: order.id })).toEqual([]);
        expect(await dead('license_keys').where({ customer_id: order.customer_id })).toEqual([]);
        expect(await dead('scheduled_jobs').where({ subject_id: order.id })).toHaveLength(1);
      } finally {
        await dead.destroy();
      }

      child = (await start({})).process;
      // Past the lease of the dead daemon's claim (PostgreSQL); on SQLite the job was free at start already.
      const moved = await clock.post('/api/admin/clock', { advance_seconds: 600 }, admin);
      expect(moved.status, moved.text).toBe(200);
      child.kill('SIGTERM');
      await child;
      child = null;

      const db = createDb(databaseUrl);
      try {
        const [order] = await db('orders').where({ checkout_id: checkout.id });
        expect(order).toBeDefined();
        const grants = await db('benefit_grants').where({ order_id: order.id });
        expect(grants).toHaveLength(2);
        for (const grant of grants) {
          expect(grant.granted_at).not.toBeNull();
          expect(grant.revoked_at).toBeNull();
        }
        const issued = await db('license_keys').where({ customer_id: order.customer_id });
        expect(issued).toHaveLength(1);
        const keyGrant = grants.find((grant) => grant.benefit_id === keys.json.id);
        expect(JSON.parse(keyGrant.properties).license_key_id).toBe(issued[0].id);
        const created = (await db('outbox_events').where({ type: 'benefit_grant.created' })).map(
          (row) => JSON.parse(row.payload).id as string,
        );
        expect(created.sort()).toEqual(grants.map((grant) => grant.id).sort());
        expect(await db('scheduled_jobs').where({ subject_id: order.id })).toEqual([]);
      } finally {
        await db.destroy();
      }
    } finally {
      crash.child = child;
      await crash.dispose();
    }
  }, 180_000);
});
