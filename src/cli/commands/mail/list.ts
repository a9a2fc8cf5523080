import { MAIL_STATUSES, type ListMailsResponse } from '../../../core/mail/schemas.js';
import type { Invocation } from '../../action.js';
import { call, resolveTarget } from '../../context.js';
import { choiceFlag, wholeNumberFlag } from '../../flags.js';
import { printJson, printTable } from '../../output.js';
import { resolveAdminToken } from '../admin/admin-token.js';

interface Options {
  to?: string;
  kind?: string;
  status?: string;
  limit?: string;
  json?: boolean;
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  if (opts.limit !== undefined) wholeNumberFlag('--limit', opts.limit, 1, 500);
  if (opts.status !== undefined) choiceFlag('--status', opts.status, MAIL_STATUSES);
  const target = resolveTarget(globals);
  const token = resolveAdminToken();
  const query = new URLSearchParams();
  for (const name of ['to', 'kind', 'status', 'limit'] as const)
    if (opts[name] !== undefined) query.set(name, opts[name]!);
  const path = `/api/admin/mails${query.size > 0 ? `?${query}` : ''}`;
  const { mails } = await call<ListMailsResponse>(target, 'GET', path, { auth: { kind: 'admin', token } });
  if (opts.json) {
    printJson(mails);
    return;
  }
  printTable(
    ['ID', 'CREATED', 'KIND', 'TO', 'STATUS', 'SUBJECT'],
    mails.map((mail) => [mail.id, mail.createdAt, mail.kind, mail.to, mail.status, mail.subject]),
  );
}
