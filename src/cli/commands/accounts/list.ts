import type { AccountWire } from '../../../core/oauth/accounts.js';
import type { Invocation } from '../../action.js';
import { call, resolveTarget } from '../../context.js';
import { printJson, printTable } from '../../output.js';

export async function run({ opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const target = resolveTarget(globals);
  const accounts = await call<AccountWire[]>(target, 'GET', '/api/auth/list-accounts');
  if (opts.json) {
    printJson(accounts);
    return;
  }
  printTable(
    ['ID', 'PROVIDER', 'ACCOUNT', 'CREATED'],
    accounts.map((account) => [account.id, account.providerId, account.accountId, account.createdAt]),
  );
}
