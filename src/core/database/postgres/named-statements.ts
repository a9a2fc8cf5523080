import { createHash } from 'node:crypto';

/**
 * Names the hot writes sent to PostgreSQL, so each connection parses and plans them once. Knex sends every statement
 * unnamed, and the server parses, analyzes and plans it again each time: in bench/renewals that was about a fifth of
 * the server's CPU, most of it on multi-row INSERTs of a few thousand values whose text repeats chunk after chunk. A
 * named statement is parsed once per connection (pg keeps the names it has sent) and, its plan cached, bound and run
 * after that.
 *
 * Only writes that return no rows are named: a cached plan of a `SELECT *` fails once a migration changes the
 * table's columns, and a write's plan is simply made again. A text is named once it has been sent a few times, and
 * the names are capped, so one-off statements and an unbounded variety of texts do not fill the server's memory.
 */

interface QueryConfig {
  text?: unknown;
  name?: unknown;
}

export interface PgConnection {
  query(...args: unknown[]): unknown;
}

const WRITE = /^\s*(insert|update|delete|merge)\b/i;
const RETURNS_ROWS = /\breturning\b/i;

export interface NamerLimits {
  /** Sends of one text before it is named. */
  hotAfter: number;
  /** Distinct texts named; later texts stay unnamed. */
  maxNamed: number;
  /** Texts counted while not yet hot; the count starts over past this. */
  maxCounted: number;
}

/** Answers a statement's name, or null while it is not (or may never be) named. */
export function createStatementNamer(limits: NamerLimits): (text: string) => string | null {
  const named = new Map<string, string>();
  const counts = new Map<string, number>();
  return (text) => {
    const known = named.get(text);
    if (known) return known;
    if (text.length < 100 || !WRITE.test(text) || RETURNS_ROWS.test(text) || named.size >= limits.maxNamed) return null;
    const seen = (counts.get(text) ?? 0) + 1;
    if (seen < limits.hotAfter) {
      if (counts.size >= limits.maxCounted) counts.clear();
      counts.set(text, seen);
      return null;
    }
    counts.delete(text);
    const name = `till_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    named.set(text, name);
    return name;
  };
}

// One namer for the process: every connection of every pool names a text alike, and pg remembers per connection
// which names it has sent.
const processNamer = createStatementNamer({ hotAfter: 3, maxNamed: 256, maxCounted: 10_000 });

/** Gives the connection's hot writes a name before pg sends them. */
export function nameHotWrites(connection: PgConnection, statementName = processNamer): void {
  const query = connection.query.bind(connection);
  connection.query = (...args: unknown[]) => {
    const config = args[0] as QueryConfig | null;
    if (config && typeof config === 'object' && typeof config.text === 'string' && config.name === undefined) {
      const name = statementName(config.text);
      if (name) args[0] = { ...config, name };
    }
    return query(...args);
  };
}
