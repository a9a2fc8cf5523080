import type { Db } from '../database/index.js';
import type { MailService } from '../mail/service.js';
import { hasRole } from '../organizations/permissions.js';
import type { EndpointRecord } from './endpoints-repository.js';

function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!,
  );
}

/**
 * Tells an organization's owners and admins (those who can turn the endpoint back on) that it was disabled. Written in
 * the transaction that disables it, so the notice goes out exactly when the change commits.
 */
export async function notifyEndpointDisabled(
  trx: Db,
  mail: MailService,
  endpoint: EndpointRecord,
  reason: string,
): Promise<void> {
  const organization = await trx('organizations').select('name').where({ id: endpoint.organizationId }).first();
  const members = await trx('members')
    .join('users', 'users.id', 'members.user_id')
    .select('users.id as user_id', 'users.email', 'members.role')
    .where('members.organization_id', endpoint.organizationId);
  const name = String(organization?.name ?? endpoint.organizationId);
  const subject = `Webhook endpoint disabled for ${name}`;
  const lines = [
    `The webhook endpoint ${endpoint.url} of ${name} was disabled because ${reason}.`,
    'Events are no longer sent to it. Fix the receiver, then enable the endpoint again (till webhooks endpoints update --enable) and replay what it missed (till webhooks replay).',
  ];
  const content = {
    subject,
    text: `${lines.join('\n\n')}\n`,
    html: `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>\n<body>${lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n')}</body></html>\n`,
  };
  for (const member of members as Array<{ user_id: string; email: string; role: string }>) {
    if (!hasRole(member.role, 'owner') && !hasRole(member.role, 'admin')) continue;
    await mail.enqueue(trx, { kind: 'webhook-endpoint-disabled', to: member.email, userId: member.user_id, content });
  }
}
