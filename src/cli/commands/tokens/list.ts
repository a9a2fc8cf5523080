import type { OrganizationAccessTokenWire } from '../../../core/access-tokens/schemas.js';
import type { Invocation } from '../../action.js';
import { orgFilter, signedIn } from '../../context.js';
import { printJson, printTable } from '../../output.js';
import { fetchAll } from '../../pages.js';

export async function run({ opts, globals }: Invocation<{ org?: string; json?: boolean }>): Promise<void> {
  const target = signedIn(globals);
  const query = new URLSearchParams();
  await orgFilter(target, query, opts);
  const tokens = await fetchAll<OrganizationAccessTokenWire>(target, '/v1/organization-access-tokens/', query);
  if (opts.json) {
    printJson(tokens);
    return;
  }
  printTable(
    ['ID', 'COMMENT', 'ORGANIZATION', 'SCOPES', 'EXPIRES', 'LAST USED', 'CREATED'],
    tokens.map((token) => [
      token.id,
      token.comment,
      token.organization_id,
      token.scopes.join(','),
      token.expires_at ?? 'never',
      token.last_used_at ?? '',
      token.created_at,
    ]),
  );
}
