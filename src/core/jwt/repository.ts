import type { JwtAlgorithm } from '../config/index.js';
import type { Db } from '../database/index.js';
import { dialect, parseJson, toDate, toDateOrNull } from '../database/index.js';

/** One signing key. The private key stays sealed in the repository; only the service opens it. */
export interface JwkRecord {
  id: string;
  publicKey: Record<string, unknown>;
  sealedPrivateKey: string;
  alg: JwtAlgorithm;
  crv: string | null;
  createdAt: Date;
  /** When the key stops signing; null when rotation is off. */
  expiresAt: Date | null;
}

type Row = Record<string, unknown>;

const COLUMNS = ['id', 'public_key', 'private_key', 'alg', 'crv', 'created_at', 'expires_at'];

// Any constant shared by every Till daemon; migrations hold 7_174_110_001.
const KEY_CREATION_LOCK = 7_174_110_002;

function fromRow(row: Row): JwkRecord {
  return {
    id: row.id as string,
    publicKey: parseJson<Record<string, unknown>>(row.public_key) ?? {},
    sealedPrivateKey: row.private_key as string,
    alg: row.alg as JwtAlgorithm,
    crv: (row.crv as string | null) ?? null,
    createdAt: toDate(row.created_at),
    expiresAt: toDateOrNull(row.expires_at),
  };
}

export function jwksRepository(db: Db) {
  return {
    async insert(record: JwkRecord): Promise<void> {
      await db('jwks').insert({
        id: record.id,
        public_key: JSON.stringify(record.publicKey),
        private_key: record.sealedPrivateKey,
        alg: record.alg,
        crv: record.crv,
        created_at: record.createdAt,
        expires_at: record.expiresAt,
      });
    },

    /** The newest key of this algorithm that may still sign at `now`. */
    async findSigning(alg: JwtAlgorithm, now: Date): Promise<JwkRecord | null> {
      const row = await db('jwks')
        .select(COLUMNS)
        .where({ alg })
        .andWhere((q) => {
          q.whereNull('expires_at').orWhere('expires_at', '>', now);
        })
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .first();
      return row ? fromRow(row) : null;
    },

    /** Keys that still sign, or stopped signing after `retiredAfter` (their tokens may still be alive), newest first. */
    async listPublished(retiredAfter: Date): Promise<JwkRecord[]> {
      const rows = await db('jwks')
        .select(COLUMNS)
        .whereNull('expires_at')
        .orWhere('expires_at', '>', retiredAfter)
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ]);
      return rows.map(fromRow);
    },

    /** Drops keys whose last token has expired: a private key nobody needs is better not kept at all. */
    async deleteRetiredBefore(before: Date): Promise<number> {
      return db('jwks').whereNotNull('expires_at').andWhere('expires_at', '<=', before).del();
    },

    /**
     * Serializes key creation across daemons sharing one PostgreSQL until the transaction ends. On SQLite one
     * daemon owns the file and its single connection already serializes transactions.
     */
    async lockKeyCreation(): Promise<void> {
      if (!db.isTransaction) throw new Error('lockKeyCreation needs a transaction');
      if (dialect(db) === 'postgres') await db.raw('SELECT pg_advisory_xact_lock(?)', [KEY_CREATION_LOCK]);
    },
  };
}
