import type { MailSummaryWire, MailWire } from './schemas.js';
import type { Mail, MailSummary } from './service.js';

export function mailSummaryToWire(mail: MailSummary): MailSummaryWire {
  return {
    id: mail.id,
    kind: mail.kind,
    userId: mail.userId,
    from: mail.from,
    to: mail.to,
    subject: mail.subject,
    status: mail.status,
    attempts: mail.attempts,
    nextAttemptAt: mail.nextAttemptAt?.toISOString() ?? null,
    lastError: mail.lastError,
    sentAt: mail.sentAt?.toISOString() ?? null,
    createdAt: mail.createdAt.toISOString(),
  };
}

export function mailToWire(mail: Mail): MailWire {
  return { ...mailSummaryToWire(mail), text: mail.text, html: mail.html };
}
