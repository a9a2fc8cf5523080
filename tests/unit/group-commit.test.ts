import { describe, expect, it } from 'vitest';
import {
  afterWriteOnlyCommit,
  isUniqueViolation,
  onSqliteCalls,
  transaction,
  type Db,
  type DeferredList,
} from '../../src/core/database/index.js';

/** Today's commitAtomically: a write-only transaction. */
const commitAtomically = (db: Db, build: (on: Db) => DeferredList) => transaction(db, build, { writeOnly: true });
import { useScratchSqlite } from '../helpers/scratch-sqlite.js';

const { freshDb } = useScratchSqlite();

/** Holds the one connection until `release` is called, so that what comes meanwhile has to wait for it. */
async function busy(db: Db): Promise<{ release(): void; done: Promise<unknown> }> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const done = db.transaction(async (trx) => {
    await trx('items').where({ name: 'nobody' }).first();
    started();
    await held;
  });
  await running;
  return { release, done };
}

/** The statements of every sqlite3 call `work` sent, each call's joined by ` + `, as `verb` or `verb name`. */
async function callsOf(work: () => Promise<unknown>): Promise<string[]> {
  const calls: string[] = [];
  const stop = onSqliteCalls((call) =>
    calls.push(
      call.statements
        .map((sql) =>
          /^insert/i.test(sql)
            ? `insert ${/values \('([^']*)'/i.exec(sql)?.[1] ?? '?'}`
            : sql.split(/\s+/)[0]!.toLowerCase(),
        )
        .join(' + '),
    ),
  );
  try {
    await work();
  } finally {
    stop();
  }
  return calls;
}

const insert = (name: string) => (on: Db) => [on('items').insert({ name })];

describe('commitAtomically on SQLite', () => {
  it('commits the transactions that waited for the connection together, in one call, in arrival order', async () => {
    const db = await freshDb();
    const calls = await callsOf(async () => {
      const holder = await busy(db);
      const waiting = ['a', 'b', 'c', 'd'].map((name) => commitAtomically(db, insert(name)));
      holder.release();
      await Promise.all([holder.done, ...waiting]);
    });
    // The holder's transaction (BEGIN goes with its first statement), then the group.
    expect(calls).toEqual(['begin', 'select', 'commit;', 'begin + insert a + insert b + insert c + insert d + commit']);
    expect(await db('items').orderBy('id').pluck('name')).toEqual(['a', 'b', 'c', 'd']);
  });

  it('fails only the transaction whose statement failed: the group is rolled back and each runs again alone', async () => {
    const db = await freshDb();
    await db('items').insert({ name: 'taken' });
    let outcomes: PromiseSettledResult<void>[] = [];
    const calls = await callsOf(async () => {
      const holder = await busy(db);
      const waiting = ['a', 'taken', 'c'].map((name) => commitAtomically(db, insert(name)));
      holder.release();
      await holder.done;
      outcomes = await Promise.allSettled(waiting);
    });
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(isUniqueViolation((outcomes[1] as PromiseRejectedResult).reason)).toBe(true);
    expect(calls.slice(3)).toEqual([
      'begin + insert a + insert taken + insert c + commit',
      'rollback',
      'begin + insert a + commit',
      'begin + insert taken + commit',
      'rollback',
      'begin + insert c + commit',
    ]);
    expect(await db('items').orderBy('id').pluck('name')).toEqual(['taken', 'a', 'c']);
  });

  it('runs what cannot be written as literals in a transaction of its own, with the rest grouped around it', async () => {
    const db = await freshDb();
    const holder = await busy(db);
    const waiting = [
      commitAtomically(db, insert('plain')),
      commitAtomically(db, (on) => [
        on('items').insert({ name: 'fraction' }),
        on('items').where({ name: 'fraction' }).update({ count: 0.5 }),
      ]),
      commitAtomically(db, insert('also plain')),
    ];
    holder.release();
    await Promise.all([holder.done, ...waiting]);
    expect(await db('items').orderBy('name').select('name', 'count')).toEqual([
      { name: 'also plain', count: 0 },
      { name: 'fraction', count: 0.5 },
      { name: 'plain', count: 0 },
    ]);
  });

  it('runs the hooks registered while building only once the writes have committed, and not for a failed one', async () => {
    const db = await freshDb();
    await db('items').insert({ name: 'taken' });
    const seen: string[] = [];
    const withHook = (name: string) => (on: Db) => {
      afterWriteOnlyCommit(() => seen.push(`${name}: ${seen.length}`));
      return insert(name)(on);
    };
    const holder = await busy(db);
    const first = commitAtomically(db, withHook('first'));
    const failed = commitAtomically(db, withHook('taken')).catch(() => 'refused');
    expect(seen).toEqual([]);
    holder.release();
    await Promise.all([holder.done, first]);
    expect(await failed).toBe('refused');
    expect(seen).toEqual(['first: 0']);
    // Outside a build there is nothing to hook into.
    expect(afterWriteOnlyCommit(() => seen.push('stray'))).toBe(false);
  });

  it('gives every waiting caller the error when the database closes under them', async () => {
    const db = await freshDb();
    const holder = await busy(db);
    const waiting = commitAtomically(db, insert('late')).then(
      () => 'committed',
      (error: unknown) => String(error),
    );
    const closing = db.destroy();
    holder.release();
    await Promise.all([holder.done, closing]);
    expect(await waiting).toMatch(/Error/);
  });
});
