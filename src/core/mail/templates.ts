/** The account mails Till sends: plain text for every client, and a small HTML part with the same content. */
export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!,
  );
}

interface Parts {
  subject: string;
  greeting: string;
  /** Paragraphs before the link. */
  lead: string[];
  link?: { url: string; label: string };
  /** Paragraphs after the link. */
  tail: string[];
}

function render(parts: Parts): MailContent {
  const paragraphs = [parts.greeting, ...parts.lead];
  const text = [...paragraphs, ...(parts.link ? [parts.link.url] : []), ...parts.tail].join('\n\n') + '\n';
  const link = parts.link
    ? `<p><a href="${escapeHtml(parts.link.url)}">${escapeHtml(parts.link.label)}</a></p>\n<p style="color:#666;font-size:90%">${escapeHtml(parts.link.url)}</p>\n`
    : '';
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(parts.subject)}</title></head>
<body style="font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;color:#222">
${paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`).join('\n')}
${link}${parts.tail.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`).join('\n')}
</body></html>
`;
  return { subject: parts.subject, text, html };
}

const IGNORE = 'If you did not ask for this, you can ignore this message.';

export function verifyEmailMail(input: { name: string; url: string }): MailContent {
  return render({
    subject: 'Verify your e-mail address',
    greeting: `Hello ${input.name},`,
    lead: ['Please confirm that this is your e-mail address by opening this link (valid for one hour):'],
    link: { url: input.url, label: 'Verify e-mail address' },
    tail: [IGNORE],
  });
}

export function changeEmailConfirmationMail(input: { name: string; newEmail: string; url: string }): MailContent {
  return render({
    subject: 'Confirm the change of your e-mail address',
    greeting: `Hello ${input.name},`,
    lead: [
      `Someone signed in to your account asked to change its e-mail address to ${input.newEmail}. To approve, open this link (valid for one hour); a verification link then goes to the new address:`,
    ],
    link: { url: input.url, label: 'Approve the change' },
    tail: ['If this was not you, do not open the link, and change your password.'],
  });
}

export function changeEmailVerificationMail(input: { name: string; url: string }): MailContent {
  return render({
    subject: 'Verify your new e-mail address',
    greeting: `Hello ${input.name},`,
    lead: ['To make this the e-mail address of your account, open this link (valid for one hour):'],
    link: { url: input.url, label: 'Use this e-mail address' },
    tail: [IGNORE],
  });
}

/** Without a redirect target there is no page to land on, so the mail gives the token and the CLI command. */
export function resetPasswordMail(input: { name: string; url: string | null; token: string }): MailContent {
  return render({
    subject: 'Reset your password',
    greeting: `Hello ${input.name},`,
    lead: [
      input.url
        ? 'To choose a new password, open this link (valid for one hour):'
        : 'Someone asked to reset the password of your account.',
    ],
    ...(input.url ? { link: { url: input.url, label: 'Reset password' } } : {}),
    tail: [
      `Reset token (valid for one hour, usable once): ${input.token}`,
      `With the till command line: till password reset --token ${input.token}`,
      IGNORE,
    ],
  });
}

export function deleteAccountMail(input: { name: string; url: string; token: string }): MailContent {
  return render({
    subject: 'Confirm the deletion of your account',
    greeting: `Hello ${input.name},`,
    lead: [
      'To delete your account and everything in it for good, open this link while signed in (valid for 24 hours):',
    ],
    link: { url: input.url, label: 'Delete my account' },
    tail: [
      `With the till command line: till account delete --token ${input.token}`,
      'If you did not ask for this, do not open the link, and change your password.',
    ],
  });
}

export function organizationInvitationMail(input: {
  inviterName: string;
  organizationName: string;
  url: string;
  invitationId: string;
}): MailContent {
  return render({
    subject: `${input.inviterName} invited you to ${input.organizationName}`,
    greeting: 'Hello,',
    lead: [
      `${input.inviterName} invited you to join ${input.organizationName}. Sign in with this address and open the invitation (valid for 48 hours):`,
    ],
    link: { url: input.url, label: 'View the invitation' },
    tail: [`To accept it, sign in and accept invitation ${input.invitationId}.`, IGNORE],
  });
}
