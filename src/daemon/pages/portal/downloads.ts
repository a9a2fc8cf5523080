import type { CoreContext } from '../../../core/context.js';
import type { CustomerActor } from '../../../core/customers/sessions.js';
import type { PortalDownload } from './model.js';

/** Polar's DownloadableRead, the part the portal shows: the file's name and size, and its signed download URL. */
export interface DownloadableRead {
  id: string;
  benefit_id: string;
  file: { id: string; name: string; size: number; size_readable?: string; download: { url: string } };
}

/** What `/v1/customer-portal/downloadables/` serves: the customer's downloadables, one page at a time. */
export interface DownloadablesPortal {
  listForCustomer(actor: CustomerActor, query: { page: number; limit: number }): Promise<{ items: DownloadableRead[] }>;
}

function readableSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/**
 * The customer's downloads, when this daemon has the downloadables service (`core.downloadables`, the portal's
 * `/v1/customer-portal/downloadables/`); null when it has not, so the portal leaves the section out instead of
 * promising files it cannot serve.
 */
export async function downloadsOf(core: CoreContext, actor: CustomerActor): Promise<PortalDownload[] | null> {
  const service = (core as unknown as { downloadables?: Partial<DownloadablesPortal> }).downloadables;
  if (typeof service?.listForCustomer !== 'function') return null;
  const page = await service.listForCustomer(actor, { page: 1, limit: 100 });
  return page.items.map((item) => ({
    id: item.id,
    name: item.file.name,
    size: item.file.size_readable ?? readableSize(item.file.size),
    url: item.file.download.url,
  }));
}
