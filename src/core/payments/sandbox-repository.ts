import type { Db } from '../database/index.js';
import { parseJson } from '../database/index.js';
import type { Clock } from '../kernel/clock.js';

export type SandboxRecordKind = 'charge' | 'refund';

export interface SandboxRecord<T> {
  kind: SandboxRecordKind;
  reference: string;
  status: string;
  amount: number;
  currency: string;
  result: T;
}

/**
 * The sandbox processor's own database: every charge and refund under the idempotency key Till sent, as Stripe keeps
 * them. The first result under a key is the one kept; asking again returns it, so a key never moves money twice.
 */
export interface SandboxRecords {
  /** Keeps `record` unless one is kept under its key already; returns the result kept. */
  keep<T>(record: SandboxRecord<T>): Promise<T>;
  /** keep for many records (of distinct keys), in a few statements; the results kept, in the order given. */
  keepMany<T>(records: ReadonlyArray<SandboxRecord<T>>): Promise<T[]>;
  find<T>(kind: SandboxRecordKind, reference: string): Promise<T | null>;
}

/**
 * Kept in the daemon's database (`sandbox_processor_records`), written outside any transaction of Till's, so a record
 * exists as soon as the processor has answered, whatever happens to the daemon next.
 */
export function sandboxRecordsRepository(db: Db, clock: Clock): SandboxRecords {
  return {
    async keep<T>(record: SandboxRecord<T>): Promise<T> {
      // One trip when the key is new (the usual case); a repeated key reads back what was kept the first time.
      const inserted = await db('sandbox_processor_records')
        .insert({
          kind: record.kind,
          reference: record.reference,
          status: record.status,
          amount: record.amount,
          currency: record.currency,
          result: JSON.stringify(record.result),
          created_at: clock.now(),
        })
        .onConflict(['kind', 'reference'])
        .ignore()
        .returning('result');
      if (inserted.length > 0) return record.result;
      return (await this.find<T>(record.kind, record.reference))!;
    },
    async keepMany<T>(records: ReadonlyArray<SandboxRecord<T>>): Promise<T[]> {
      const kept: T[] = [];
      // 100 rows a statement: SQLite's limit on the terms of the compound SELECT knex writes.
      for (let start = 0; start < records.length; start += 100) {
        const chunk = records.slice(start, start + 100);
        const at = clock.now();
        const inserted = (await db('sandbox_processor_records')
          .insert(
            chunk.map((record) => ({
              kind: record.kind,
              reference: record.reference,
              status: record.status,
              amount: record.amount,
              currency: record.currency,
              result: JSON.stringify(record.result),
              created_at: at,
            })),
          )
          .onConflict(['kind', 'reference'])
          .ignore()
          .returning(['kind', 'reference'])) as Array<{ kind: string; reference: string }>;
        const fresh = new Set(inserted.map((row) => `${row.kind}:${row.reference}`));
        for (const record of chunk)
          kept.push(
            fresh.has(`${record.kind}:${record.reference}`)
              ? record.result
              : (await this.find<T>(record.kind, record.reference))!,
          );
      }
      return kept;
    },
    async find<T>(kind: SandboxRecordKind, reference: string): Promise<T | null> {
      const row = await db('sandbox_processor_records').where({ kind, reference }).first('result');
      return row ? parseJson<T>(row.result) : null;
    },
  };
}

/** The same in memory, for a sandbox built without a database (unit and API tests that wrap it). */
export function memorySandboxRecords(): SandboxRecords {
  const records = new Map<string, unknown>();
  return {
    async keep<T>(record: SandboxRecord<T>): Promise<T> {
      const key = `${record.kind}:${record.reference}`;
      if (!records.has(key)) records.set(key, record.result);
      return records.get(key) as T;
    },
    async keepMany<T>(many: ReadonlyArray<SandboxRecord<T>>): Promise<T[]> {
      const kept: T[] = [];
      for (const record of many) kept.push(await this.keep(record));
      return kept;
    },
    async find<T>(kind: SandboxRecordKind, reference: string): Promise<T | null> {
      return (records.get(`${kind}:${reference}`) as T | undefined) ?? null;
    },
  };
}
