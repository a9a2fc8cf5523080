import type { MailWire } from '../../../core/mail/schemas.js';
import type { Invocation } from '../../action.js';
import { call, resolveTarget } from '../../context.js';
import { printJson, printLine } from '../../output.js';
import { resolveAdminToken } from '../admin/admin-token.js';

export async function run({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const id = String(args[0]);
  const target = resolveTarget(globals);
  const token = resolveAdminToken();
  const mail = await call<MailWire>(target, 'GET', `/api/admin/mails/${encodeURIComponent(id)}`, {
    auth: { kind: 'admin', token },
  });
  if (opts.json) {
    printJson(mail);
    return;
  }
  printLine(`From:    ${mail.from}`);
  printLine(`To:      ${mail.to}`);
  printLine(`Subject: ${mail.subject}`);
  printLine(`Date:    ${mail.createdAt}`);
  printLine(
    `Status:  ${mail.status}${mail.attempts ? ` (${mail.attempts} attempt${mail.attempts === 1 ? '' : 's'})` : ''}${mail.lastError ? `, last error: ${mail.lastError}` : ''}`,
  );
  printLine('');
  process.stdout.write(mail.text.endsWith('\n') ? mail.text : `${mail.text}\n`);
}
