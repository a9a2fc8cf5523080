import type { ListApiKeysResponse } from '../../../core/api-keys/schemas.js';
import type { Invocation } from '../../action.js';
import { bearer, call, resolveTarget } from '../../context.js';
import { printJson, printTable } from '../../output.js';

export async function run({ opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const target = resolveTarget(globals);
  bearer(target);
  const { apiKeys } = await call<ListApiKeysResponse>(target, 'GET', '/api/auth/api-key/list');
  if (opts.json) {
    printJson(apiKeys);
    return;
  }
  printTable(
    ['ID', 'NAME', 'START', 'ENABLED', 'EXPIRES', 'LAST USED', 'CREATED'],
    apiKeys.map((key) => [
      key.id,
      key.name ?? '',
      key.start ? `${key.start}...` : '',
      key.enabled ? 'yes' : 'no',
      key.expiresAt ?? 'never',
      key.lastRequest ?? '',
      key.createdAt,
    ]),
  );
}
