import { describe, expect, it } from 'vitest';
import { createDb } from '../../src/core/database/index.js';
import { crashableDaemon } from '../helpers/crash-daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';
import { until } from '../helpers/webhooks.js';
import { testDialect } from '../helpers/database.js';

const tokensMeter = {
  name: 'LLM tokens',
  filter: { conjunction: 'and', clauses: [{ property: 'name', operator: 'eq', value: 'llm' }] },
  aggregation: { func: 'sum', property: 'tokens' },
};

async function ingest(merchant: Merchant, events: unknown[]) {
  const response = await merchant.api.post('/v1/events/ingest', { events });
  expect(response.status, response.text).toBe(200);
}

async function consumed(merchant: Merchant, customerId: string, meterId: string): Promise<number | undefined> {
  const response = await merchant.api.get(`/v1/customer-meters/?customer_id=${customerId}&meter_id=${meterId}`);
  expect(response.status, response.text).toBe(200);
  return response.json.items[0]?.consumed_units;
}

/**
 * On SQLite ingestion holds customer meters' totals in memory for a few seconds (src/core/meters/pending-totals.ts).
 * A real daemon process SIGKILLed right after an ingestion loses what it held; started again, it counts those events
 * again from the `totals` mark, once, as ingestion would have: a meter created after some events leaves those to its
 * backfill, and events for an external id with no customer yet count once the customer exists. On PostgreSQL
 * ingestion writes the totals with the events, and the same reads must hold.
 */
describe('a daemon killed while it holds meter totals', () => {
  it('counts them again at the next start, each event once', async () => {
    const crash = await crashableDaemon('till-totals-crash-');
    try {
      let child = (await crash.start()).process;
      const merchant = await createMerchant(crash.daemon);
      const tokens = (await merchant.api.post('/v1/meters/', tokensMeter)).json as { id: string };
      const buyer = (await merchant.api.post('/v1/customers/', { email: uniqueEmail('buyer'), external_id: 'ext-1' }))
        .json as { id: string };
      await ingest(
        merchant,
        Array.from({ length: 40 }, (_, i) => ({ name: 'llm', customer_id: buyer.id, metadata: { tokens: i + 1 } })),
      );
      // Created after 40 events: its backfill counts those, ingestion the ones after.
      const calls = (
        await merchant.api.post('/v1/meters/', {
          name: 'Calls',
          filter: tokensMeter.filter,
          aggregation: { func: 'count' },
        })
      ).json as { id: string };
      // Done before the kill: a backfill step the dead daemon had claimed would wait out its lease on PostgreSQL.
      await until(async () => (await merchant.api.get(`/v1/meters/${calls.id}`)).json.backfill_pending === false);
      await ingest(merchant, [
        ...Array.from({ length: 10 }, () => ({
          name: 'llm',
          external_customer_id: 'ext-1',
          metadata: { tokens: 100 },
        })),
        ...Array.from({ length: 5 }, () => ({
          name: 'llm',
          external_customer_id: 'ext-later',
          metadata: { tokens: 7 },
        })),
      ]);
      child.kill('SIGKILL');
      expect((await child).signal).toBe('SIGKILL');

      if (crash.database.dialect === 'sqlite') {
        // What the test is about: the last ingestion's totals were only in the dead daemon's memory.
        const db = createDb(crash.databaseUrl);
        try {
          const mark = await db('event_index_marks').where('name', 'totals').first('seq');
          const last = await db('events').max({ seq: 'seq' }).first();
          expect(Number(mark.seq)).toBeLessThan(Number(last?.seq));
        } finally {
          await db.destroy();
        }
      }

      child = (await crash.start()).process;
      expect(await consumed(merchant, buyer.id, tokens.id)).toBe(820 + 1000);
      expect(await consumed(merchant, buyer.id, calls.id)).toBe(50);
      const later = (
        await merchant.api.post('/v1/customers/', { email: uniqueEmail('later'), external_id: 'ext-later' })
      ).json as { id: string };
      expect(await consumed(merchant, later.id, tokens.id)).toBe(35);
      expect(await consumed(merchant, later.id, calls.id)).toBe(5);
      child.kill('SIGTERM');
      await child;
      crash.child = null;

      // Started a third time: nothing left to count again.
      child = (await crash.start()).process;
      expect(await consumed(merchant, buyer.id, tokens.id)).toBe(1820);
      expect(await consumed(merchant, buyer.id, calls.id)).toBe(50);
      expect(await consumed(merchant, later.id, tokens.id)).toBe(35);
    } finally {
      await crash.dispose();
    }
  });

  // SQLite holds totals in memory and writes them a slice at a time in the background; PostgreSQL writes them with
  // each ingestion, so it has no such step to stop at.
  it.runIf(testDialect === 'sqlite')(
    'counts once the events a slice of a held write already wrote when the daemon stops before the mark moves',
    async () => {
      const crash = await crashableDaemon('till-totals-slice-crash-');
      try {
        let child = (await crash.start({ TILL_TEST_CRASH_AT: 'totals.sliced' })).process;
        const merchant = await createMerchant(crash.daemon);
        const tokens = (await merchant.api.post('/v1/meters/', tokensMeter)).json as { id: string };
        const buyer = (await merchant.api.post('/v1/customers/', { email: uniqueEmail('buyer'), external_id: 'ext-1' }))
          .json as { id: string };
        await ingest(merchant, [
          ...Array.from({ length: 30 }, (_, i) => ({
            name: 'llm',
            customer_id: buyer.id,
            metadata: { tokens: i + 1 },
          })),
          ...Array.from({ length: 4 }, () => ({ name: 'llm', external_customer_id: 'ext-x', metadata: { tokens: 5 } })),
        ]);
        // Nothing reads the totals: the background write comes within TOTALS_WRITE_MS, writes its one slice and dies.
        expect((await child).signal).toBe('SIGKILL');

        const db = createDb(crash.databaseUrl);
        try {
          const mark = Number((await db('event_index_marks').where('name', 'totals').first('seq')).seq);
          const last = Number((await db('events').max({ seq: 'seq' }).first())?.seq);
          expect(mark).toBeLessThan(last);
          const rows = await db('meter_totals').where('meter_id', tokens.id).select('subject', 'held_through_seq');
          expect(rows.map((row) => Number(row.held_through_seq))).toEqual([last, last]);
        } finally {
          await db.destroy();
        }

        child = (await crash.start()).process;
        expect(await consumed(merchant, buyer.id, tokens.id)).toBe(465);
        await ingest(merchant, [{ name: 'llm', customer_id: buyer.id, metadata: { tokens: 1000 } }]);
        expect(await consumed(merchant, buyer.id, tokens.id)).toBe(1465);
        const later = (await merchant.api.post('/v1/customers/', { email: uniqueEmail('later'), external_id: 'ext-x' }))
          .json as { id: string };
        expect(await consumed(merchant, later.id, tokens.id)).toBe(20);
        child.kill('SIGTERM');
        await child;
        crash.child = null;

        child = (await crash.start()).process;
        expect(await consumed(merchant, buyer.id, tokens.id)).toBe(1465);
        expect(await consumed(merchant, later.id, tokens.id)).toBe(20);
      } finally {
        await crash.dispose();
      }
    },
  );
});
