import type { OrganizationAccessTokenWire } from '../../../core/access-tokens/schemas.js';
import type { Invocation } from '../../action.js';
import { call, resolveOrg, signedIn } from '../../context.js';
import { printJson, printTable } from '../../output.js';

interface Page {
  items: OrganizationAccessTokenWire[];
  pagination: { total_count: number; max_page: number };
}

export async function run({ opts, globals }: Invocation<{ org?: string; json?: boolean }>): Promise<void> {
  const target = signedIn(globals);
  const organizationId = opts.org === undefined ? undefined : (await resolveOrg(target, opts.org)).id;
  const tokens: OrganizationAccessTokenWire[] = [];
  // Every page, not just the first: a script reading --json expects the whole list.
  for (let page = 1; ; page += 1) {
    const query = new URLSearchParams({ page: String(page), limit: '100' });
    if (organizationId) query.set('organization_id', organizationId);
    const answer = await call<Page>(target, 'GET', `/v1/organization-access-tokens/?${query}`);
    tokens.push(...answer.items);
    if (page >= answer.pagination.max_page || answer.items.length === 0) break;
  }
  if (opts.json) {
    printJson(tokens);
    return;
  }
  printTable(
    ['ID', 'COMMENT', 'ORGANIZATION', 'SCOPES', 'EXPIRES', 'LAST USED', 'CREATED'],
    tokens.map((token) => [token.id, token.comment, token.organization_id, token.scopes.join(','), token.expires_at ?? 'never', token.last_used_at ?? '', token.created_at]),
  );
}
