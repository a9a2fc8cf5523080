import type { MailContent } from '../mail/templates.js';

function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!,
  );
}

/** Two decimals, as most currencies show minor units; the code says which currency. */
function formatMinor(amount: number, currency: string): string {
  return `${(amount / 100).toFixed(2)} ${currency.toUpperCase()}`;
}

function render(subject: string, lines: string[]): MailContent {
  return {
    subject,
    text: `${lines.join('\n\n')}\n`,
    html: `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>\n<body>${lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n')}</body></html>\n`,
  };
}

/** To the customer, when a renewal charge first fails (Polar e-mails them on `mark_past_due`). */
export function pastDueMail(input: { name: string | null; amount: number; currency: string; retryAt: Date }) {
  return render('Your subscription payment failed', [
    `Hello${input.name ? ` ${input.name}` : ''},`,
    `We could not charge ${formatMinor(input.amount, input.currency)} for the renewal of your subscription.`,
    `We will try again on ${input.retryAt.toISOString().slice(0, 10)}. To avoid losing access, update your payment method in the customer portal.`,
  ]);
}

/** To the customer, before a trial ends (3 days before, 1 day for trials shorter than a week). */
export function trialEndingMail(input: { name: string | null; productName: string; trialEnd: Date }) {
  return render('Your trial is ending soon', [
    `Hello${input.name ? ` ${input.name}` : ''},`,
    `Your trial of ${input.productName} ends on ${input.trialEnd.toISOString().slice(0, 10)}. Your subscription will then be billed to your saved payment method.`,
  ]);
}
