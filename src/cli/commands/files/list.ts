import type { FileReadWire } from '../../../core/files/schemas.js';
import type { Invocation } from '../../action.js';
import { actingOrg, signedIn, type OrgChoice } from '../../context.js';
import { printJson, printTable } from '../../output.js';
import { v1 } from './api.js';

export async function run({ opts, globals }: Invocation<OrgChoice>): Promise<void> {
  const target = signedIn(globals);
  const org = await actingOrg(target, opts);
  const files: FileReadWire[] = [];
  for (let page = 1; ; page++) {
    const query = new URLSearchParams({ page: String(page), limit: '100' });
    if (org) query.set('organization_id', org.id);
    const answer = await v1<{ items: FileReadWire[]; pagination: { max_page: number } }>(
      target,
      'GET',
      `/v1/files/?${query}`,
    );
    files.push(...answer.items);
    if (page >= answer.pagination.max_page) break;
  }
  if (opts.json) {
    printJson(files);
    return;
  }
  printTable(
    ['ID', 'NAME', 'SERVICE', 'SIZE', 'VERSION', 'CREATED'],
    files.map((file) => [file.id, file.name, file.service, file.size_readable, file.version ?? '', file.created_at]),
  );
}
