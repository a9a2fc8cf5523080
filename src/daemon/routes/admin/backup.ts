import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type Router from '@koa/router';
import type { CoreContext } from '../../../core/context.js';
import { sqlitePath } from '../../../core/database/index.js';
import { DomainError } from '../../../core/kernel/errors.js';
import { createOperations } from '../../../core/operations/service.js';

/**
 * POST /api/admin/backup: a consistent copy of the running daemon's SQLite database, streamed as the answer. The
 * daemon holds its file exclusively, so the copy is made here (VACUUM INTO a file beside the database, removed once
 * sent) while the daemon keeps serving. PostgreSQL has its own tools, which the answer names.
 */
export function adminBackupRoutes(router: Router, core: CoreContext): void {
  const operations = createOperations({ db: core.db, clock: core.clock });

  router.post('/backup', async (ctx) => {
    if (operations.dialect !== 'sqlite')
      throw new DomainError(
        409,
        'BACKUP_USE_PG_DUMP',
        'This daemon runs on PostgreSQL: back it up with pg_dump --format=custom and restore with pg_restore',
      );
    const database = sqlitePath(core.config.databaseUrl);
    if (database === ':memory:') throw new DomainError(409, 'BACKUP_IN_MEMORY', 'An in-memory database has no file');
    const copy = join(dirname(database), `.till-backup-${randomUUID()}.db`);
    try {
      await operations.backupSqlite(copy);
    } catch (error) {
      await rm(copy, { force: true });
      throw error;
    }
    const stream = createReadStream(copy);
    // Removed once sent, or once the client went away mid-copy.
    stream.once('close', () => void rm(copy, { force: true }));
    ctx.set('Content-Disposition', 'attachment; filename="till-backup.db"');
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'application/vnd.sqlite3';
    ctx.body = stream;
  });
}
