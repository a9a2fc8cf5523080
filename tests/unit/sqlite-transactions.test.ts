import { describe, expect, it } from 'vitest';
import {
  finishWith,
  isUniqueViolation,
  onSqliteCalls,
  type Db,
  type SqliteCall,
} from '../../src/core/database/index.js';
import { literalInsert } from '../../src/core/database/bulk.js';
import { inlineBindings, sqliteLiteral } from '../../src/core/database/sqlite/literals.js';
import { useScratchSqlite } from '../helpers/scratch-sqlite.js';

const scratch = useScratchSqlite();

async function freshDb(): Promise<Db> {
  const db = await scratch.freshDb();
  await db.schema.createTable('notes', (t) => {
    t.increments('id');
    t.integer('item_id').notNullable().references('id').inTable('items');
  });
  // Untyped columns keep the storage class each value arrives with, so a literal that changed it would show.
  await db.raw('CREATE TABLE loose (a, b TEXT, c INTEGER, d REAL)');
  return db;
}

/** The sqlite3 calls `work` sent, each as its statements joined by ` + `. */
async function callsOf(work: () => Promise<unknown>): Promise<string[]> {
  const calls: SqliteCall[] = [];
  const stop = onSqliteCalls((call) => calls.push(call));
  try {
    await work();
  } finally {
    stop();
  }
  return calls.map((call) =>
    call.statements.map((sql) => sql.split(/\s+/).slice(0, 3).join(' ').toLowerCase()).join(' + '),
  );
}

describe('SQLite literals', () => {
  it('are what the driver would have bound: same value, same storage class', async () => {
    const db = await freshDb();
    const values: unknown[][] = [
      ["it's", "quote '' twice", 'ünïcödé 🧾', 'semi; colon -- and /* not a comment */ ?'],
      [0, -0, 2147483647, -2147483648],
      [2147483648, 1_763_800_000_000, -9007199254740991, Number.MAX_SAFE_INTEGER],
      [true, false, null, Buffer.from([0, 1, 254, 255])],
      [new Date(1_763_800_000_123), new Date(0), 'x', 7],
    ];
    for (const row of values) {
      await db.raw('INSERT INTO loose (a, b, c, d) VALUES (?, ?, ?, ?)', row as never[]);
      const sql = inlineBindings('INSERT INTO loose (a, b, c, d) VALUES (?, ?, ?, ?)', row);
      expect(sql).not.toBeNull();
      await db.raw(sql!);
    }
    const rows = await db.raw(
      'SELECT a, typeof(a) AS ta, b, typeof(b) AS tb, c, typeof(c) AS tc, d, typeof(d) AS td FROM loose ORDER BY rowid',
    );
    expect(rows).toHaveLength(values.length * 2);
    for (let i = 0; i < rows.length; i += 2) expect(rows[i + 1]).toEqual(rows[i]);
  });

  it('decline what cannot be written exactly, and placeholders that do not match their values', () => {
    for (const value of [
      'nul \0 inside',
      0.5,
      Number.NaN,
      Infinity,
      2 ** 53,
      10n,
      undefined,
      new Date(Number.NaN),
      {},
      [1],
    ])
      expect(sqliteLiteral(value)).toBeNull();
    expect(inlineBindings('select ?, ?', [1])).toBeNull();
    expect(inlineBindings('select ?', [1, 2])).toBeNull();
    expect(inlineBindings('select ?1', [1])).toBeNull();
    expect(inlineBindings('select \'?\', "?", `?`, [?], ? -- ?\n, /* ? */ ?', [1, 'two'])).toBe(
      "select '?', \"?\", `?`, [?], 1 -- ?\n, /* ? */ 'two'",
    );
    expect(inlineBindings("select 'it''s ?', ?", [3])).toBe("select 'it''s ?', 3");
  });
});

describe('literal multi-row inserts on SQLite', () => {
  async function stored(db: Db) {
    return db.raw(
      'SELECT a, typeof(a) AS ta, b, typeof(b) AS tb, c, typeof(c) AS tc, d, typeof(d) AS td FROM loose ORDER BY rowid',
    );
  }

  /** What `loose` holds once emptied and given the rows one by one with bound values, as the driver stores them. */
  async function storedWhenBound(db: Db, rows: unknown[][], json: boolean[]) {
    await db('loose').delete();
    for (const row of rows)
      await db.raw(
        'INSERT INTO loose (a, b, c, d) VALUES (?, ?, ?, ?)',
        row.map((value, c) => (json[c] ? JSON.stringify(value) : value)) as never[],
      );
    return stored(db);
  }

  it('write a column that is the same in every row once, storing what binding each row would', async () => {
    const db = await freshDb();
    const rows: unknown[][] = [
      ['org', null, 1_763_800_000_000, 'x'],
      ['org', null, 7, { nested: ["it's"] }],
      ['org', null, 1_763_800_000_000, null],
    ];
    const json = [false, false, false, true];
    const statement = literalInsert(db, 'loose', ['a', 'b', 'c', 'd'], rows, '', json);
    const sql = statement!.toSQL().sql;
    expect(sql).toMatch(/^INSERT INTO loose \(a, b, c, d\) SELECT 'org', NULL, column1, column2 FROM \(VALUES /);
    expect(sql.match(/'org'/g)).toHaveLength(1);
    await statement;
    const literal = await stored(db);
    expect(literal).toEqual(await storedWhenBound(db, rows, json));
  });

  it('store text beyond ASCII, quotes and large statements as binding would, one after another', async () => {
    const db = await freshDb();
    const texts = ["it's", "''", 'é', 'ü\u{1F600}x', '\u00ff', '日本語', '', 'a'.repeat(5_000)];
    // Over a megabyte of text, so that a statement outgrows what the one before it used.
    const big = Array.from({ length: 3_000 }, (_, i) => [
      `k${i}`,
      null,
      i,
      texts[i % texts.length]!.slice(0, 50).repeat(10) + 'x'.repeat(400),
    ]);
    for (const rows of [texts.map((text, i) => [text, null, i, { text }]), big, [['plain', null, 1, 'ascii']]]) {
      const json = [false, false, false, rows === big ? false : true];
      const statement = literalInsert(db, 'loose', ['a', 'b', 'c', 'd'], rows, '', json);
      expect(statement).not.toBeNull();
      await statement;
      const literal = await stored(db);
      expect(literal).toEqual(await storedWhenBound(db, rows, json));
      await db('loose').delete();
    }
  });

  it('read long text out in pieces without cutting a character in two', async () => {
    const db = await freshDb();
    // Three- and four-byte characters over many pieces of the read-out (bulk.ts), shifted by a byte or two from row
    // to row, so that piece boundaries fall inside characters.
    const rows = ['日'.repeat(40_000), '\u{1F600}'.repeat(30_000), `é${'\u{1F600}'.repeat(20_000)}`].map((text, i) => [
      'x'.repeat(i),
      null,
      i,
      text,
    ]);
    const statement = literalInsert(db, 'loose', ['a', 'b', 'c', 'd'], rows, '');
    expect(statement!.toSQL().sql).toContain(`'${'\u{1F600}'.repeat(30_000)}'`);
    await statement;
    const literal = await stored(db);
    expect(literal).toEqual(await storedWhenBound(db, rows, [false, false, false, false]));
  });

  it('keep an ON CONFLICT clause an upsert, and plain VALUES when nothing or everything is constant', async () => {
    const db = await freshDb();
    await db.raw('CREATE TABLE counted (k TEXT PRIMARY KEY, org TEXT, n INTEGER)');
    const upsert = (rows: unknown[][]) =>
      literalInsert(db, 'counted', ['k', 'org', 'n'], rows, 'ON CONFLICT (k) DO UPDATE SET n = counted.n + excluded.n');
    await upsert([
      ['a', 'o', 1],
      ['b', 'o', 2],
    ]);
    await upsert([
      ['a', 'o', 10],
      ['c', 'o', 3],
    ]);
    const alone = upsert([['b', 'o', 20]]);
    expect(alone!.toSQL().sql).toMatch(/^INSERT INTO counted \(k, org, n\) VALUES \('b', 'o', 20\)/);
    await alone;
    expect(
      upsert([
        ['d', 'p', 1],
        ['e', 'q', 2],
      ])!.toSQL().sql,
    ).toMatch(/ VALUES \('d', 'p', 1\), \('e', 'q', 2\)/);
    expect(
      literalInsert(
        db,
        'counted',
        ['k', 'org', 'n'],
        [
          ['f', 'o', 0.5],
          ['g', 'o', 1],
        ],
        '',
      ),
    ).toBeNull();
    // Text with a NUL has no literal, in a column that varies as in one written once.
    for (const rows of [
      [
        ['h', 'o', 1],
        ['i\0j', 'o', 2],
      ],
      [
        ['k', 'o\0', 1],
        ['l', 'o\0', 2],
      ],
    ])
      expect(literalInsert(db, 'counted', ['k', 'org', 'n'], rows, '')).toBeNull();
    expect(await db('counted').orderBy('k').select('k', 'org', 'n')).toEqual([
      { k: 'a', org: 'o', n: 11 },
      { k: 'b', org: 'o', n: 22 },
      { k: 'c', org: 'o', n: 3 },
    ]);
  });
});

describe('transactions on SQLite', () => {
  it('send the last writes with COMMIT in one call, BEGIN too when nothing went before', async () => {
    const db = await freshDb();
    const calls = await callsOf(() =>
      db.transaction((trx) =>
        finishWith(trx, trx('items').insert({ name: 'a', count: 1 }), trx('notes').insert({ item_id: 1 })),
      ),
    );
    expect(calls).toEqual(['begin + insert into `items` + insert into `notes` + commit']);
    expect(await db('notes').select('item_id')).toEqual([{ item_id: 1 }]);

    const after = await callsOf(() =>
      db.transaction(async (trx) => {
        const [id] = (await trx('items').insert({ name: 'b' })) as number[];
        await finishWith(trx, trx('items').where({ id }).update({ count: 5 }), trx('notes').insert({ item_id: id }));
      }),
    );
    expect(after).toEqual(['begin', 'insert into `items`', 'update `items` set + insert into `notes` + commit']);
    expect(await db('items').where({ name: 'b' }).first()).toMatchObject({ count: 5 });
  });

  it('cost nothing when they send nothing', async () => {
    const db = await freshDb();
    expect(await callsOf(() => db.transaction(async () => undefined))).toEqual([]);
    await expect(db.transaction(async () => Promise.reject(new Error('nothing sent')))).rejects.toThrow('nothing sent');
    expect(await db.transaction(async (trx) => trx('items').count({ n: '*' }).first())).toEqual({ n: 0 });
  });

  it('roll back all of it when one of the last writes fails, with the error as SQLite gave it', async () => {
    const db = await freshDb();
    await db('items').insert({ name: 'taken' });
    const failure = await db
      .transaction(async (trx) => {
        await trx('items').insert({ name: 'first' });
        await finishWith(trx, trx('items').insert({ name: 'second' }), trx('items').insert({ name: 'taken' }));
      })
      .catch((error: unknown) => error);
    expect(isUniqueViolation(failure)).toBe(true);
    expect((await db('items').orderBy('id')).map((row: { name: string }) => row.name)).toEqual(['taken']);

    // A foreign key is checked as each statement runs: a note for a missing item fails at once.
    await expect(db.transaction((trx) => finishWith(trx, trx('notes').insert({ item_id: 999 })))).rejects.toThrow(
      /FOREIGN KEY/,
    );
    // Checked at COMMIT when deferred: the COMMIT in the batch fails and leaves the transaction open, to be rolled back.
    await expect(
      db.transaction(async (trx) => {
        await trx.raw('PRAGMA defer_foreign_keys = ON');
        await finishWith(trx, trx('notes').insert({ item_id: 999 }), trx('items').insert({ name: 'with the orphan' }));
      }),
    ).rejects.toThrow(/FOREIGN KEY/);
    // The connection is usable afterwards, in and out of transactions.
    await db.transaction((trx) => finishWith(trx, trx('items').insert({ name: 'after' })));
    expect(await db('items').count({ n: '*' }).first()).toEqual({ n: 2 });
  });

  it('refuse a statement after the commit, and say so', async () => {
    const db = await freshDb();
    const failure = await db
      .transaction(async (trx) => {
        await finishWith(trx, trx('items').insert({ name: 'committed' }));
        await trx('items').insert({ name: 'too late' });
      })
      .catch((error: unknown) => error);
    expect(String(failure)).toMatch(/already committed \(finishWith must be its last statement\)/);
    expect((await db('items')).map((row: { name: string }) => row.name)).toEqual(['committed']);
  });

  it('fall back to statements of their own inside a nested transaction and for values no literal can carry', async () => {
    const db = await freshDb();
    const nested = await callsOf(() =>
      db.transaction(async (trx) => {
        await trx('items').insert({ name: 'outer' });
        await trx.transaction((inner) => finishWith(inner, inner('items').insert({ name: 'inner' })));
        await trx('items').insert({ name: 'outer again' });
      }),
    );
    expect(nested.filter((call) => call.includes('+'))).toEqual([]);
    expect(await db('items').count({ n: '*' }).first()).toEqual({ n: 3 });

    await db.transaction((trx) =>
      finishWith(
        trx,
        trx('items').insert({ name: 'nul \0 byte' }),
        trx.raw('UPDATE items SET count = ? WHERE name = ?', [0.5, 'outer']),
      ),
    );
    expect(await db('items').where({ name: 'nul \0 byte' }).first()).toBeTruthy();
    expect(await db.raw("SELECT count FROM items WHERE name = 'outer'")).toEqual([{ count: 0.5 }]);
  });

  it('keep working when a BEGIN-less transaction and plain statements interleave with batches', async () => {
    const db = await freshDb();
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        i % 3 === 0
          ? db('items').insert({ name: `plain-${i}` })
          : db.transaction(async (trx) => {
              if (i % 3 === 1) await trx('items').where({ name: 'nobody' }).first();
              await finishWith(trx, trx('items').insert({ name: `batched-${i}` }));
            }),
      ),
    );
    expect(await db('items').count({ n: '*' }).first()).toEqual({ n: 30 });
  });
});
