import sqlite3 from 'sqlite3';
import { describe, expect, it } from 'vitest';
import { isUniqueViolation, type Db } from '../../src/core/database/index.js';
import { cachePreparedStatements, type SqliteConnection } from '../../src/core/database/sqlite/statements.js';
import { useScratchSqlite } from '../helpers/scratch-sqlite.js';

const { freshDb, path } = useScratchSqlite();

describe('prepared statement reuse on SQLite', () => {
  it('answers repeated queries of one shape with each call own values, ids and change counts', async () => {
    const db = await freshDb();
    const ids: number[] = [];
    for (let i = 0; i < 20; i++) ids.push(...((await db('items').insert({ name: `item-${i}`, count: i })) as number[]));
    expect(ids).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    for (let i = 0; i < 20; i++)
      expect(
        await db('items')
          .where({ name: `item-${i}` })
          .first(),
      ).toEqual({ id: i + 1, name: `item-${i}`, count: i });
    expect(await db('items').where('count', '<', 5).update({ count: 100 })).toBe(5);
    expect(await db('items').where('count', '<', 5).update({ count: 100 })).toBe(0);
    expect(await db('items').where({ count: 100 }).delete()).toBe(5);
    expect((await db('items').count({ n: '*' }).first())?.n).toBe(15);
  });

  it('reports failures and keeps working after them: constraint violations, bad SQL, rolled back transactions', async () => {
    const db = await freshDb();
    await db('items').insert({ name: 'taken' });
    const duplicate = await db('items')
      .insert({ name: 'taken' })
      .catch((error: unknown) => error);
    expect(isUniqueViolation(duplicate)).toBe(true);
    await db('items').insert({ name: 'free' });
    await expect(db.raw('select * from no_such_table')).rejects.toThrow(/no such table/);
    await expect(db.raw('select * from no_such_table')).rejects.toThrow(/no such table/);
    await expect(
      db.transaction(async (trx) => {
        await trx('items').insert({ name: 'rolled back' });
        await trx.transaction(async (inner) => inner('items').insert({ name: 'inner' }));
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    await db.transaction(async (trx) => {
      await trx('items').insert({ name: 'kept' });
      await trx.transaction(async (inner) => inner('items').insert({ name: 'inner kept' }));
    });
    expect((await db('items').orderBy('id').select('name')).map((row: { name: string }) => row.name)).toEqual([
      'taken',
      'free',
      'kept',
      'inner kept',
    ]);
  });

  it('rolls back after a COMMIT that fails (a deferred foreign key), so the one connection takes the next transaction', async () => {
    const db = await freshDb();
    await db.schema.createTable('children', (t) => {
      t.increments('id');
      t.integer('item_id').notNullable().references('id').inTable('items');
    });
    const orphan = (trx: Db) => trx('children').insert({ item_id: 999 });
    const deferForeignKeys = (trx: Db) => trx.raw('PRAGMA defer_foreign_keys = ON');
    await expect(
      db.transaction(async (trx) => {
        await deferForeignKeys(trx);
        await orphan(trx);
      }),
    ).rejects.toThrow(/FOREIGN KEY/);
    await db.transaction(async (trx) => {
      await trx('items').insert({ name: 'after' });
    });
    expect(await db('children').count({ n: '*' }).first()).toEqual({ n: 0 });
    expect(await db('items').pluck('name')).toEqual(['after']);
    // Deferring lasts one transaction: the next one checks each statement again.
    await expect(db.transaction(async (trx) => orphan(trx))).rejects.toThrow(/FOREIGN KEY/);
    await db.transaction(async (trx) => {
      await deferForeignKeys(trx);
      const [item] = (await trx('items').insert({ name: 'parent' })) as number[];
      await orphan(trx);
      await trx('children').where({ item_id: 999 }).update({ item_id: item });
    });
    expect(await db('children').count({ n: '*' }).first()).toEqual({ n: 1 });
  });

  it('sees schema changes made after a statement was cached', async () => {
    const db = await freshDb();
    await db('items').insert({ name: 'a' });
    expect(await db('items').select('*')).toEqual([{ id: 1, name: 'a', count: 0 }]);
    await db.schema.alterTable('items', (t) => t.string('note').nullable());
    expect(await db('items').select('*')).toEqual([{ id: 1, name: 'a', count: 0, note: null }]);
  });

  it('evicts the least recently used statements beyond its bound and closes with statements still cached', async () => {
    const database = new sqlite3.Database(path()) as unknown as SqliteConnection;
    cachePreparedStatements(database, 3);
    const all = (sql: string, parameters: unknown[]) =>
      new Promise<unknown>((resolve, reject) =>
        database.all(sql, parameters, (error, rows) => (error ? reject(error) : resolve(rows))),
      );
    const prepared: string[] = [];
    const prepare = database.prepare.bind(database);
    database.prepare = (sql, callback) => {
      prepared.push(sql);
      return prepare(sql, callback);
    };
    for (const n of [1, 2, 3, 1, 4, 1, 2]) expect(await all(`select ? + ${n} as v`, [10])).toEqual([{ v: 10 + n }]);
    // 1, 2, 3 prepared; 1 reused; 4 evicts 2 (least recently used); 1 reused; 2 prepared again.
    expect(prepared).toEqual([
      'select ? + 1 as v',
      'select ? + 2 as v',
      'select ? + 3 as v',
      'select ? + 4 as v',
      'select ? + 2 as v',
    ]);
    await new Promise<void>((resolve, reject) => database.close((error) => (error ? reject(error) : resolve())));
  });

  it('does not keep statements of more than 256 kB (values written in, never sent twice)', async () => {
    const database = new sqlite3.Database(path()) as unknown as SqliteConnection;
    cachePreparedStatements(database);
    const prepared: string[] = [];
    const prepare = database.prepare.bind(database);
    database.prepare = (sql, callback) => {
      prepared.push(sql);
      return prepare(sql, callback);
    };
    const long = `select ? + 1 as v where length('${'x'.repeat(300_000)}') > 0`;
    expect(long.length).toBeGreaterThan(256 * 1024);
    for (const sql of [long, long, 'select ? + 1 as v'])
      await new Promise<void>((resolve, reject) =>
        database.all(sql, [1], (error, rows) => {
          if (error) return reject(error);
          expect(rows).toEqual([{ v: 2 }]);
          resolve();
        }),
      );
    expect(prepared).toEqual(['select ? + 1 as v']);
    await new Promise<void>((resolve, reject) => database.close((error) => (error ? reject(error) : resolve())));
  });
});
