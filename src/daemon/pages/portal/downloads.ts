import type { CoreContext } from '../../../core/context.js';
import type { CustomerActor } from '../../../core/customers/sessions.js';
import type { PortalDownload } from './model.js';

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

/** The customer's downloads (the portal's `/v1/customer-portal/downloadables/`), each with a fresh signed URL. */
export async function downloadsOf(core: CoreContext, actor: CustomerActor): Promise<PortalDownload[]> {
  const page = await core.downloadables.listForCustomer(actor, { page: 1, limit: 100 });
  return page.items.map((item) => ({
    id: item.id,
    name: item.file.name,
    size: item.file.size_readable || readableSize(item.file.size),
    url: item.file.download.url,
  }));
}
