import sqlite3 from 'sqlite3';

/**
 * The daemon's SQLite file: held by one process, and checkpointed beside the connection that writes it.
 *
 * SQLite copies the WAL back into the database file in a checkpoint, which by default runs inside the COMMIT that
 * crosses wal_autocheckpoint, on the committing connection: the daemon's one connection, which every request waits
 * for. In a storm of renewals that was two stalls of about 280 ms in ten seconds (bench/renewals/README.md). Here a
 * connection of its own runs a PASSIVE checkpoint every CHECKPOINT_EVERY_MS on libuv's thread pool, alongside the
 * writes (WAL lets one connection write while another checkpoints), so the COMMIT that crosses the threshold finds
 * the pages already copied and only lets the WAL start over.
 *
 * A second connection needs the file in SQLite's normal locking mode, where the exclusive mode used to keep a second
 * daemon out; that is now the job of an exclusive lock on a file beside it (`<file>-lock`, an empty SQLite database
 * held in exclusive mode), which a daemon, `till migrate` and `till restore` all take. The operating system releases
 * it when the process ends, however it ends.
 */

/**
 * How often the checkpointing connection copies what the WAL holds. A page written again and again between two
 * checkpoints is copied once: under ingestion, whose index pages are rewritten commit after commit, 2 s spent about a
 * seventh less CPU an event than 500 ms did (bench/events/README.md), with no loss in a storm of renewals.
 */
export const CHECKPOINT_EVERY_MS = 2_000;

type Database = InstanceType<typeof sqlite3.Database>;

function open(filename: string): Promise<Database> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(filename, (error) => (error ? reject(error) : resolve(db)));
  });
}

function exec(db: Database, sql: string): Promise<void> {
  return new Promise((resolve, reject) => db.exec(sql, (error) => (error ? reject(error) : resolve())));
}

function close(db: Database): Promise<void> {
  return new Promise((resolve) => db.close(() => resolve()));
}

export function lockFileOf(filename: string): string {
  return `${filename}-lock`;
}

/**
 * Takes the file's lock: answers the release, or null when another process (or another connection of this one)
 * holds it.
 */
export async function holdFile(filename: string): Promise<(() => Promise<void>) | null> {
  const lock = await open(lockFileOf(filename));
  try {
    // The first write in exclusive mode takes the lock, and the mode keeps it until the connection closes. It holds no
    // data, so no journal (a file beside it) either.
    await exec(
      lock,
      'PRAGMA busy_timeout = 0; PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = OFF; BEGIN EXCLUSIVE; COMMIT;',
    );
  } catch (error) {
    await close(lock);
    if ((error as { code?: string }).code === 'SQLITE_BUSY') return null;
    throw error;
  }
  return () => close(lock);
}

/** Starts checkpointing the file in the background; the answer stops it (waiting for a checkpoint under way). */
export async function startCheckpointer(filename: string): Promise<() => Promise<void>> {
  const db = await open(filename);
  // A checkpoint never waits here (PASSIVE), and nothing else this connection does could.
  await exec(db, 'PRAGMA busy_timeout = 0;');
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = new Promise<void>((resolve) => {
      // A failure (the file busy for a moment, say) is left for the next tick: the writer's own checkpoint at
      // wal_autocheckpoint stays as the backstop.
      db.run('PRAGMA wal_checkpoint(PASSIVE)', () => resolve());
    }).then(() => {
      running = null;
    });
  }, CHECKPOINT_EVERY_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
    await close(db);
  };
}
