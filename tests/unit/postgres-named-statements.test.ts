import { afterAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/core/database/connection.js';
import { createStatementNamer, nameHotWrites } from '../../src/core/database/postgres/named-statements.js';
import { createTestDatabase, testDialect, type TestDatabase } from '../helpers/database.js';

const padding = ' '.repeat(100);
const insert = (table: string) => `insert into ${table} (a, b) values ($1, $2)${padding}`;

describe('naming the hot writes sent to PostgreSQL', () => {
  it('names a write from its third send on, always alike, and never a read, a RETURNING or a short text', () => {
    const name = createStatementNamer({ hotAfter: 3, maxNamed: 10, maxCounted: 100 });
    expect([name(insert('t')), name(insert('t'))]).toEqual([null, null]);
    const third = name(insert('t'));
    expect(third).toMatch(/^till_[0-9a-f]{24}$/);
    expect(name(insert('t'))).toBe(third);
    expect(name(insert('u'))).toBeNull();
    for (const text of [
      `select * from t where a = $1${padding}`,
      `insert into t (a) values ($1) returning id${padding}`,
      'delete from t where a = $1',
    ]) {
      for (let i = 0; i < 5; i++) expect(name(text)).toBeNull();
    }
    for (const verb of [
      `update t set a = $1${padding}`,
      `delete from t where a = $1${padding}`,
      `merge into t using u on t.a = u.a when matched then delete${padding}`,
    ]) {
      name(verb);
      name(verb);
      expect(name(verb)).toMatch(/^till_/);
    }
  });

  it('stops naming new texts at the cap, and keeps the names it gave', () => {
    const name = createStatementNamer({ hotAfter: 1, maxNamed: 2, maxCounted: 100 });
    const first = name(insert('a'));
    const second = name(insert('b'));
    expect(first).not.toBe(second);
    expect(name(insert('c'))).toBeNull();
    expect([name(insert('a')), name(insert('b'))]).toEqual([first, second]);
  });

  it('names only the config pg is given, leaving plain texts and given names alone', () => {
    const sent: unknown[] = [];
    const connection = { query: (...args: unknown[]) => sent.push(args[0]) };
    nameHotWrites(connection, createStatementNamer({ hotAfter: 1, maxNamed: 10, maxCounted: 100 }));
    connection.query({ text: insert('t'), values: [1, 2] });
    connection.query({ text: insert('t'), values: [1, 2], name: 'mine' });
    connection.query('BEGIN');
    expect(sent).toEqual([
      { text: insert('t'), values: [1, 2], name: expect.stringMatching(/^till_/) },
      { text: insert('t'), values: [1, 2], name: 'mine' },
      'BEGIN',
    ]);
  });
});

describe.runIf(testDialect === 'postgres')('named writes on a real PostgreSQL', () => {
  let database: TestDatabase;
  afterAll(async () => {
    await database?.drop();
  });

  it('prepares a repeated write once per connection, and keeps it working after the table changes', async () => {
    database = await createTestDatabase();
    const db = createDb(database.url, { poolMax: 1 });
    try {
      await db.schema.createTable('items', (t) => {
        t.increments('id');
        t.text('name').notNullable();
        t.integer('count').notNullable();
      });
      const rows = (n: number) => Array.from({ length: 8 }, (_, i) => ({ name: `item-${n}-${i}`, count: n * 10 + i }));
      for (let n = 0; n < 5; n++) await db('items').insert(rows(n));
      const prepared = (await db.raw("select name from pg_prepared_statements where name like 'till\\_%'")).rows;
      expect(prepared).toHaveLength(1);
      // A column added after the write was prepared: the server plans it again.
      await db.schema.alterTable('items', (t) => t.text('note').nullable());
      await db('items').insert(rows(5));
      expect(Number((await db('items').count({ n: '*' }).first())?.n)).toBe(48);
      expect(await db('items').where({ count: 53 }).first()).toMatchObject({
        name: 'item-5-3',
      });
    } finally {
      await db.destroy();
    }
  });
});
