import { z } from 'zod';

// Wire shapes of the admin API's mail routes (camelCase, like /api/auth). Shared by the daemon and `till mail`.

export const MAIL_STATUSES = ['stored', 'pending', 'sending', 'sent', 'failed'] as const;

export const listMailsQuery = z.object({
  to: z.string().optional(),
  kind: z.string().optional(),
  status: z.enum(MAIL_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});

export const mailSummaryWire = z.object({
  id: z.string(),
  kind: z.string(),
  userId: z.string().nullable(),
  from: z.string(),
  to: z.string(),
  subject: z.string(),
  status: z.enum(MAIL_STATUSES),
  attempts: z.number(),
  nextAttemptAt: z.string().nullable(),
  lastError: z.string().nullable(),
  sentAt: z.string().nullable(),
  createdAt: z.string(),
});
export type MailSummaryWire = z.infer<typeof mailSummaryWire>;

export const mailWire = mailSummaryWire.extend({ text: z.string(), html: z.string() });
export type MailWire = z.infer<typeof mailWire>;

export const listMailsResponse = z.object({ mails: z.array(mailSummaryWire) });
export type ListMailsResponse = z.infer<typeof listMailsResponse>;
