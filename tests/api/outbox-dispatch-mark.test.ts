import { describe, expect, it } from 'vitest';
import * as dispatchMark from '../../migrations/20261229000000_outbox_dispatch_mark.js';
import * as outboxPending from '../../migrations/20270102000000_outbox_pending.js';
import { createDb, dialect } from '../../src/core/database/index.js';
import { outboxRepository } from '../../src/core/webhooks/outbox-repository.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { createMerchant } from '../helpers/v1.js';

// On SQLite the dispatcher's progress is a mark over rowids; on PostgreSQL the list of rows pending. Either way the
// rows waiting, the backlog and retention must agree, including for rows written before either existed (when
// each row's dispatched_at said it).
describe('which outbox rows the dispatcher has fanned out', () => {
  it('carries rows dispatched before the migration over, then marks, counts and prunes by it', async () => {
    // A database no daemon works on, so no dispatcher moves what the test writes.
    const source = await startTestDaemon();
    const merchant = await createMerchant(source);
    await source.close();
    const db = createDb(source.database.url);
    try {
      await outboxPending.down(db);
      await dispatchMark.down(db);
      await db('outbox_events').whereNull('dispatched_at').update({ dispatched_at: new Date() });
      const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 0, minutes));
      const ids = [1, 2, 3, 4].map((n) => `01900000-0000-7000-8000-00000000000${n}`);
      for (const [i, id] of ids.entries()) {
        await db('outbox_events').insert({
          id,
          organization_id: merchant.organization.id,
          type: 'product.updated',
          payload: `{"n":${i}}`,
          created_at: at(i),
          // The first two were fanned out before the upgrade.
          dispatched_at: i < 2 ? at(i) : null,
        });
      }
      await dispatchMark.up(db);
      await outboxPending.up(db);

      const outbox = outboxRepository(db);
      const waiting = await outbox.undispatched(10);
      expect(waiting.map((row) => row.id)).toEqual(ids.slice(2));
      expect(await outbox.backlog()).toEqual({ depth: 2, oldestAt: at(2) });
      expect(await outbox.payloads(ids.slice(2))).toEqual(
        new Map([
          [ids[2], '{"n":2}'],
          [ids[3], '{"n":3}'],
        ]),
      );

      await outbox.markDispatched(waiting.slice(0, 1));
      expect((await outbox.undispatched(10)).map((row) => row.id)).toEqual([ids[3]]);
      expect((await outbox.backlog()).depth).toBe(1);

      // Retention takes dispatched rows before the cutoff, never one still waiting.
      const pruned = await outbox.prune(new Date(Date.UTC(2100, 0, 1)));
      expect(pruned).toBeGreaterThanOrEqual(3);
      const left = (await db('outbox_events').select('id')).map((row: { id: string }) => row.id);
      expect(left).toEqual([ids[3]]);
      expect((await outbox.undispatched(10)).map((row) => row.id)).toEqual([ids[3]]);
    } finally {
      await db.destroy();
      await source.database.drop();
    }
  });
  it('forgets a waiting row that is deleted, as when an event is taken back or its organization deleted', async () => {
    const source = await startTestDaemon();
    const merchant = await createMerchant(source);
    await source.close();
    const db = createDb(source.database.url);
    try {
      const outbox = outboxRepository(db);
      await outbox.markDispatched(await outbox.undispatched(1000));
      const ids = [5, 6, 7].map((n) => `01900000-0000-7000-8000-00000000000${n}`);
      for (const [i, id] of ids.entries())
        await db('outbox_events').insert({
          id,
          organization_id: merchant.organization.id,
          type: 'product.updated',
          payload: `{"n":${i}}`,
          created_at: new Date(Date.UTC(2026, 0, 1, 0, i)),
        });
      await db('outbox_events').where('id', ids[1]).del();
      expect((await outbox.undispatched(10)).map((row) => row.id)).toEqual([ids[0], ids[2]]);
      expect((await outbox.backlog()).depth).toBe(2);
      if (dialect(db) === 'postgres') {
        const pending = await db('outbox_pending').orderBy('seq').select('id');
        expect(pending.map((row: { id: string }) => row.id)).toEqual([ids[0], ids[2]]);
        // An organization's deletion takes its outbox rows with it, and so their places in the list.
        await db('organizations').where('id', merchant.organization.id).del();
        expect(Number((await db('outbox_pending').count({ n: '*' }))[0]!.n)).toBe(0);
      }
    } finally {
      await db.destroy();
      await source.database.drop();
    }
  });
});
