import type { ReadStream } from 'node:fs';
import type { CustomerActor } from '../customers/sessions.js';
import type { Db } from '../database/index.js';
import type { FileRecord } from '../files/repository.js';
import { filesRepository } from '../files/repository.js';
import type { fileStorage } from '../files/storage.js';
import { fileFields } from '../files/wire.js';
import { benefitGrantsRepository } from '../benefit-grants/repository.js';
import { isGranted } from '../benefit-grants/wire.js';
import type { Clock } from '../kernel/clock.js';
import type { Page } from '../kernel/pagination.js';
import { notPermitted, resourceNotFound } from '../polar-api/errors.js';
import { iso, isUuid } from '../polar-api/schemas.js';
import { DOWNLOAD_URL_TTL_MS, downloadUrlSigner } from './links.js';
import type { Downloadable } from './repository.js';
import { downloadablesRepository } from './repository.js';
import type { DownloadableListQuery, DownloadableReadWire } from './schemas.js';

/** Where a downloadable's signed link points: served by `open` below (routes/v1/downloadables.ts). */
export function downloadablePath(id: string): string {
  return `/v1/customer-portal/downloadables/${id}/file`;
}

/**
 * Downloadables in the customer portal: the files a customer's grants hand out, each with a signed, short-lived link
 * tied to its grant; and the bytes behind such a link, refused once the grant is revoked.
 */
export function createDownloadablesService(deps: {
  db: Db;
  clock: Clock;
  baseUrl: string;
  secret: string;
  storage: ReturnType<typeof fileStorage>;
}) {
  const { db, clock } = deps;
  const signer = downloadUrlSigner(deps.secret);

  function wire(downloadable: Downloadable, file: FileRecord, now: Date): DownloadableReadWire {
    const expiresAt = new Date(now.getTime() + DOWNLOAD_URL_TTL_MS);
    const url = new URL(`${deps.baseUrl}${downloadablePath(downloadable.id)}`);
    url.searchParams.set('token', signer.token(downloadable.id, downloadable.grantId, expiresAt));
    return {
      id: downloadable.id,
      benefit_id: downloadable.benefitId,
      file: {
        ...fileFields(file),
        download: { url: url.href, headers: {}, expires_at: iso(expiresAt) },
        service: file.service,
      },
    };
  }

  return {
    /** `GET /v1/customer-portal/downloadables/`: the signed-in customer's files in force, with fresh links. */
    async listForCustomer(actor: CustomerActor, query: DownloadableListQuery): Promise<Page<DownloadableReadWire>> {
      const page = await downloadablesRepository(db).listLive(actor.customer.id, query.benefit_id, {
        ...query,
        sorting: ['-created_at'],
      });
      const files = new Map(
        (await filesRepository(db).findLiveByIds(page.items.map((item) => item.fileId))).map((f) => [f.id, f]),
      );
      const now = clock.now();
      return {
        items: page.items
          .filter((item) => files.has(item.fileId))
          .map((item) => wire(item, files.get(item.fileId)!, now)),
        pagination: page.pagination,
      };
    },

    /**
     * The bytes behind a signed link. A forged, altered or expired link is refused; so is a valid one whose grant or
     * downloadable has been revoked since it was signed. The file itself may be archived on its benefit.
     */
    async open(id: string, token: string | undefined): Promise<{ file: FileRecord; stream: ReadStream; size: number }> {
      const downloadable = isUuid(id) ? await downloadablesRepository(db).findById(id) : null;
      if (!downloadable) throw resourceNotFound();
      const check = signer.check(token, downloadable.id, downloadable.grantId, clock.now());
      if (check === 'invalid') throw notPermitted('This download link is not valid.');
      if (check === 'expired') throw notPermitted('This download link has expired; ask the portal for a new one.');
      const grant = await benefitGrantsRepository(db).findById(downloadable.grantId);
      if (!grant || !isGranted(grant) || downloadable.revokedAt)
        throw notPermitted('This benefit is no longer granted.');
      const file = await filesRepository(db).findLive(downloadable.fileId);
      if (!file || !file.isUploaded) throw resourceNotFound();
      const opened = await deps.storage.open(file.organizationId, file.id);
      if (!opened) throw resourceNotFound('The bytes of this file are missing from the files directory.');
      return { file, ...opened };
    },
  };
}

export type DownloadablesService = ReturnType<typeof createDownloadablesService>;
