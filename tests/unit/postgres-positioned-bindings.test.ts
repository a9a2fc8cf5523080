import knexFactory from 'knex';
import { describe, expect, it } from 'vitest';
import { cachePositionedBindings, createPositionCache } from '../../src/core/database/postgres/positioned-bindings.js';

describe('createPositionCache', () => {
  const numbered = (sql: string) => {
    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
  };

  it('answers what the positioning answers, computing each text once', () => {
    let calls = 0;
    const position = createPositionCache((sql) => {
      calls += 1;
      return numbered(sql);
    });
    const sql = 'insert into t (a, b) values (?, ?), (?, ?)';
    expect(position(sql)).toBe('insert into t (a, b) values ($1, $2), ($3, $4)');
    // A text built again (not the same string object) is found too.
    expect(position(['insert into t (a, b) values (?, ?),', ' (?, ?)'].join(''))).toBe(
      'insert into t (a, b) values ($1, $2), ($3, $4)',
    );
    expect(calls).toBe(1);
  });

  it('starts over past its budget and still answers rightly', () => {
    let calls = 0;
    const position = createPositionCache((sql) => {
      calls += 1;
      return numbered(sql);
    }, 60);
    const a = 'select ? as first_value_here';
    const b = 'select ?, ? as second_value_here';
    expect(position(a)).toBe('select $1 as first_value_here');
    expect(position(b)).toBe('select $1, $2 as second_value_here');
    expect(position(a)).toBe('select $1 as first_value_here');
    expect(calls).toBe(3);
  });
});

describe('cachePositionedBindings', () => {
  it('positions the statements of the database and of its transactions as knex does', () => {
    const plain = knexFactory({ client: 'pg' });
    const sql = 'select * from t where a = ? and b = \\? and c in (?, ?)';
    const expected = plain.client.positionBindings(sql);
    expect(expected).toBe('select * from t where a = $1 and b = ? and c in ($2, $3)');

    const db = knexFactory({ client: 'pg' });
    cachePositionedBindings(db.client);
    cachePositionedBindings(db.client);
    expect(db.client.positionBindings(sql)).toBe(expected);
    expect(db.client.positionBindings(sql)).toBe(expected);
    // A transaction's client is made from the class's prototype (knex's makeTxClient).
    const trxClient = Object.create(db.client.constructor.prototype) as typeof db.client;
    expect(trxClient.positionBindings(sql)).toBe(expected);
    expect(db('t').where('a', 1).whereIn('c', [2, 3]).toSQL().toNative().sql).toBe(
      'select * from "t" where "a" = $1 and "c" in ($2, $3)',
    );
  });
});
