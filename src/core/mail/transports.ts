import { request } from 'undici';
import type { MailConfig } from '../config/index.js';

/** A message as handed to a transport. */
export interface OutgoingMail {
  id: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface MailTransport {
  /** `outbox` never sends: mail is kept in the database for `till mail` to show. */
  readonly kind: 'smtp' | 'http' | 'outbox';
  /** Resolves once the peer has accepted the message; throws otherwise (the mail is then retried). */
  send(mail: OutgoingMail): Promise<void>;
  close(): Promise<void>;
}

// Generous, but bounded well inside the claim lease, so a hung peer cannot make a live claim look abandoned.
const TIMEOUT_MS = 30_000;

/**
 * SMTP through nodemailer, which takes the connection URL as it is (`smtp://user:pass@host:587`,
 * `smtps://…:465`, options such as `?tls.rejectUnauthorized=false` in the query). Loaded on first send, so
 * commands that never send mail never load it.
 */
function smtpTransport(url: string): MailTransport {
  type Transporter = { sendMail(message: object): Promise<unknown>; close(): void };
  let transporter: Promise<Transporter> | null = null;
  const open = async (): Promise<Transporter> => {
    const nodemailer = await import('nodemailer');
    // Settings in the URL's query win over these defaults.
    return nodemailer.createTransport({
      url,
      connectionTimeout: TIMEOUT_MS,
      greetingTimeout: TIMEOUT_MS,
      socketTimeout: TIMEOUT_MS,
    }) as unknown as Transporter;
  };
  return {
    kind: 'smtp',
    async send(mail) {
      transporter ??= open();
      // The mail id becomes the Message-ID, so a retried message can be recognized as the same one downstream.
      await (
        await transporter
      ).sendMail({
        from: mail.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        messageId: `<${mail.id}@till>`,
      });
    },
    async close() {
      if (transporter) (await transporter).close();
    },
  };
}

/** A relay that takes `{from, to, subject, text, html}` as JSON; any 2xx answer means accepted. */
function httpTransport(url: string): MailTransport {
  return {
    kind: 'http',
    async send(mail) {
      const response = await request(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          // Delivery is at least once: a relay may use this to drop a retry of a message it already took.
          'idempotency-key': mail.id,
          'user-agent': 'till-mail',
        },
        body: JSON.stringify({ from: mail.from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html }),
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
      });
      const answer = await response.body.text();
      if (response.statusCode < 200 || response.statusCode > 299) {
        throw new Error(`mail relay answered HTTP ${response.statusCode}${answer ? `: ${answer.slice(0, 200)}` : ''}`);
      }
    },
    async close() {},
  };
}

const outbox: MailTransport = {
  kind: 'outbox',
  async send() {
    throw new Error('the outbox transport does not send mail');
  },
  async close() {},
};

export function createTransport(config: MailConfig): MailTransport {
  if (config.url === 'outbox') return outbox;
  const protocol = new URL(config.url).protocol;
  return protocol === 'smtp:' || protocol === 'smtps:' ? smtpTransport(config.url) : httpTransport(config.url);
}
