import { describe, expect, it } from 'vitest';
import { mergeCustomerIndex } from '../../src/core/events/customer-index.js';
import { customerIndexRepository } from '../../src/core/meters/events-by-customer.js';
import * as byEpoch from '../../migrations/20270105000000_event_customer_index_by_epoch.js';
import { testDialect } from '../helpers/database.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { createCustomer, createMerchant } from '../helpers/v1.js';

const daemon = useTestDaemon();

describe("a customer's events, merged into the customer index or still after its mark", () => {
  it('lists and sums the same events before, during and after merges', async () => {
    const { ingest, check } = await setUp();
    const index = customerIndexRepository(daemon().core.db);
    for (let round = 0; round < 4; round++) {
      await ingest(round);
      await check();
      // Part of what is after the mark, then (last round) all of it; in slices of two staged rows.
      await mergeCustomerIndex(daemon().core.db, round === 3 ? 1_000_000 : 5, { slice: 2 });
      await check();
    }
    if (index.lazy) expect(await index.unindexed()).toBe(0);
  });

  it('reads the same through a merge cut short, and the next merge finishes it', async () => {
    const { ingest, check } = await setUp();
    const index = customerIndexRepository(daemon().core.db);
    await ingest(0);
    await ingest(1);
    const staged = await index.stage(1_000_000);
    if (!index.lazy) {
      expect(staged).toBeNull();
      return;
    }
    // Some slices in, the mark not moved: entries past the mark (as after a stop mid-merge).
    expect(staged!.rows).toBeGreaterThan(4);
    await index.mergeStaged(1, 4);
    await check();
    // Staged again by the next merge; the entries already in are skipped.
    expect(await mergeCustomerIndex(daemon().core.db, 1_000_000, { slice: 3 })).toBe(staged!.to - staged!.from);
    await check();
    expect(await index.unindexed()).toBe(0);
    // A staging table that is not the one staged (a new connection) leaves the mark where it was.
    await ingest(2);
    const again = (await index.stage(1_000_000))!;
    await daemon().core.db.raw('DELETE FROM temp.customer_index_staged WHERE rowid = 1');
    expect(await index.finishStaged(again)).toBe(false);
    expect(await index.unindexed()).toBe(again.to - again.from);
    await check();
    expect(await mergeCustomerIndex(daemon().core.db, 1_000_000)).toBe(again.to - again.from);
    await check();
  });

  it.runIf(testDialect === 'sqlite')(
    "finds a customer's entries in every epoch of the index, and through the migration that keys it by epoch",
    async () => {
      const { ingest, check } = await setUp();
      const db = daemon().core.db;
      for (let round = 0; round < 3; round++) {
        await ingest(round);
        await mergeCustomerIndex(db, 1_000_000);
      }
      // Entries spread over epochs 0, 2 and 5 (an epoch is 262,144 seqs: more events than a test writes), with
      // epochs between them that hold none.
      const seqs = (await db('event_customer_index').orderBy('seq').pluck('seq')).map(Number);
      const [second, third] = [seqs.at(-25)!, seqs.at(-13)!];
      await db('event_customer_index').where('seq', '>=', second).update({ epoch: 2 });
      await db('event_customer_index').where('seq', '>=', third).update({ epoch: 5 });
      await check();
      // Back to the index keyed by customer, and forward again: every entry in, each in the epoch of its seq.
      await byEpoch.down(db);
      expect(await db('event_customer_index').count({ n: '*' }).first()).toEqual({ n: seqs.length });
      await byEpoch.up(db);
      const rebuilt = await db('event_customer_index').select('epoch', 'seq').orderBy('seq');
      expect(rebuilt.map((row) => Number(row.seq))).toEqual(seqs);
      expect(rebuilt.every((row) => Number(row.epoch) === Math.floor(Number(row.seq) / 262_144))).toBe(true);
      await check();
    },
  );
});

/** A merchant with a meter and two customers; `ingest(round)` posts a round of events, `check` compares every read. */
async function setUp() {
  const merchant = await createMerchant(daemon());
  const meter = (
    await merchant.api.post('/v1/meters/', {
      name: 'Tokens',
      filter: { conjunction: 'and', clauses: [{ property: 'name', operator: 'eq', value: 'llm' }] },
      aggregation: { func: 'sum', property: 'tokens' },
    })
  ).json as { id: string };
  const alice = await createCustomer(merchant, 'alice');
  const bob = await createCustomer(merchant, 'bob');
  const now = daemon().core.clock.now().getTime();
  const start = now - 3 * 3600_000;
  const expected = new Map<string, { count: number; tokens: number }>([
    [alice.id, { count: 0, tokens: 0 }],
    [bob.id, { count: 0, tokens: 0 }],
  ]);

  async function check() {
    for (const [id, want] of expected) {
      const listed = await merchant.api.get(`/v1/events/?customer_id=${id}&limit=100`);
      expect(listed.status, listed.text).toBe(200);
      expect(listed.json.pagination.total_count).toBe(want.count);
      const series = await merchant.api.get(
        `/v1/meters/${meter.id}/quantities?start_timestamp=${new Date(start - 3600_000).toISOString()}&end_timestamp=${new Date(now).toISOString()}&interval=day&customer_id=${id}`,
      );
      expect(series.status, series.text).toBe(200);
      expect(series.json.total).toBe(want.tokens);
    }
  }

  async function ingest(round: number) {
    // Out of order in time, some by external id: the index is sorted by customer and seq, not arrival.
    const events = Array.from({ length: 12 }, (_, i) => {
      const who = i % 3 === 0 ? bob : alice;
      const want = expected.get(who.id)!;
      want.count += 1;
      want.tokens += round * 100 + i;
      return {
        name: 'llm',
        ...(i % 4 === 0 ? { external_customer_id: who === bob ? 'bob' : 'alice' } : { customer_id: who.id }),
        timestamp: new Date(start + ((i * 7919 + round * 31) % 10_000) * 1000).toISOString(),
        metadata: { tokens: round * 100 + i },
      };
    });
    const ingested = await merchant.api.post('/v1/events/ingest', { events });
    expect(ingested.status, ingested.text).toBe(200);
    await daemon().core.background.settled();
  }

  return { ingest, check };
}
