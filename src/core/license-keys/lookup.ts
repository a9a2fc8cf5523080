import type { Db } from '../database/index.js';
import type { Customer } from '../customers/repository.js';
import type { LicenseKey } from './repository.js';
import { licenseKeysRepository } from './repository.js';

type Found = { key: LicenseKey; customer: Customer } | null;

interface Waiting {
  digest: string;
  resolve(found: Found): void;
  reject(error: unknown): void;
}

// Keys per read: the busiest moment's validations, with a statement whose size stays modest.
const MAX_BATCH = 64;

/**
 * The keys public calls name, read together: while one read is on its way, the lookups that arrive wait and go in the
 * next read, one per organization. Under load a validation's read is a share of one trip to the database instead of
 * a trip of its own (on SQLite, every trip holds the one connection); alone, a lookup is sent at once.
 */
export function createKeyLookup(db: Db) {
  const queues = new Map<string, Waiting[]>();
  const busy = new Set<string>();

  async function drain(organizationId: string): Promise<void> {
    busy.add(organizationId);
    try {
      for (;;) {
        const queue = queues.get(organizationId) ?? [];
        if (queue.length === 0) break;
        const batch = queue.splice(0, MAX_BATCH);
        try {
          const found = await licenseKeysRepository(db).findByDigestsWithCustomer(organizationId, [
            ...new Set(batch.map((waiting) => waiting.digest)),
          ]);
          for (const waiting of batch) waiting.resolve(found.get(waiting.digest) ?? null);
        } catch (error) {
          for (const waiting of batch) waiting.reject(error);
        }
      }
    } finally {
      queues.delete(organizationId);
      busy.delete(organizationId);
    }
  }

  return {
    /** The key with this digest in the organization, and its customer; null when there is none. */
    find(organizationId: string, digest: string): Promise<Found> {
      return new Promise<Found>((resolve, reject) => {
        let queue = queues.get(organizationId);
        if (!queue) queues.set(organizationId, (queue = []));
        queue.push({ digest, resolve, reject });
        if (!busy.has(organizationId)) void drain(organizationId);
      });
    },
  };
}
