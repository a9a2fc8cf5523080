import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { request } from 'undici';
import { adminToken } from '../../src/core/kernel/crypto.js';
import { TEST_SECRET } from './daemon.js';

/** A message as a mailbox sees it: headers, and the text and HTML parts decoded. */
export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  messageId: string;
  text: string;
  html: string;
  raw: string;
}

function unfoldHeaders(block: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of block.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

function decodeBody(body: string, encoding: string | undefined): string {
  switch ((encoding ?? '7bit').toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    case 'quoted-printable': {
      const soft = body.replace(/=\r\n/g, '');
      const bytes: number[] = [];
      for (let i = 0; i < soft.length; i++) {
        if (soft[i] === '=' && /^[0-9A-F]{2}$/i.test(soft.slice(i + 1, i + 3))) {
          bytes.push(parseInt(soft.slice(i + 1, i + 3), 16));
          i += 2;
        } else bytes.push(...Buffer.from(soft[i]!, 'utf8'));
      }
      return Buffer.from(bytes).toString('utf8');
    }
    default:
      return body;
  }
}

/** Just enough MIME for what nodemailer writes: one part, or multipart/alternative with text and HTML. */
export function parseMail(raw: string, envelopeTo: string[] = []): ReceivedMail {
  const split = raw.indexOf('\r\n\r\n');
  const headers = unfoldHeaders(raw.slice(0, split));
  const body = raw.slice(split + 4);
  const parts: Array<{ type: string; content: string }> = [];
  const boundary = /boundary="?([^";]+)"?/i.exec(headers.get('content-type') ?? '')?.[1];
  if (boundary) {
    for (const chunk of body.split(`--${boundary}`).slice(1)) {
      if (chunk.startsWith('--')) break;
      const at = chunk.indexOf('\r\n\r\n');
      const partHeaders = unfoldHeaders(chunk.slice(0, at).replace(/^\r\n/, ''));
      const content = chunk.slice(at + 4).replace(/\r\n$/, '');
      parts.push({
        type: partHeaders.get('content-type') ?? '',
        content: decodeBody(content, partHeaders.get('content-transfer-encoding')),
      });
    }
  } else {
    parts.push({
      type: headers.get('content-type') ?? 'text/plain',
      content: decodeBody(body, headers.get('content-transfer-encoding')),
    });
  }
  return {
    from: headers.get('from') ?? '',
    to: envelopeTo,
    subject: headers.get('subject') ?? '',
    messageId: headers.get('message-id') ?? '',
    text: parts.find((part) => part.type.startsWith('text/plain'))?.content ?? '',
    html: parts.find((part) => part.type.startsWith('text/html'))?.content ?? '',
    raw,
  };
}

export interface TestSmtpServer {
  url: string;
  /** Accepted messages, in order. */
  received: ReceivedMail[];
  /** Every DATA the server saw, rejected ones included. */
  attempts: number;
  /** Answer the next n messages with a temporary failure. */
  rejectNext(n: number): void;
  close(): Promise<void>;
}

/** A real SMTP server (smtp-server) on 127.0.0.1, port 0, that keeps what it accepts. */
export async function startSmtpServer(): Promise<TestSmtpServer> {
  let rejecting = 0;
  const state: TestSmtpServer = {
    url: '',
    received: [],
    attempts: 0,
    rejectNext(n) {
      rejecting = n;
    },
    close: async () => undefined,
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        state.attempts += 1;
        if (rejecting > 0) {
          rejecting -= 1;
          callback(Object.assign(new Error('Mailbox busy, try again later'), { responseCode: 451 }));
          return;
        }
        const to = session.envelope.rcptTo.map((address) => address.address);
        state.received.push(parseMail(Buffer.concat(chunks).toString('utf8'), to));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = (server as unknown as { server: { address(): AddressInfo } }).server.address();
  state.url = `smtp://127.0.0.1:${port}`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}

export interface TestRelay {
  url: string;
  received: Array<{
    body: { from: string; to: string; subject: string; text: string; html: string };
    headers: IncomingMessage['headers'];
  }>;
  attempts: number;
  /** Answer the next n posts with HTTP 503. */
  failNext(n: number): void;
  close(): Promise<void>;
}

/** An HTTP mail relay on node:http: takes the JSON message, answers 202. */
export async function startRelay(): Promise<TestRelay> {
  let failing = 0;
  const state: TestRelay = {
    url: '',
    received: [],
    attempts: 0,
    failNext: (n) => void (failing = n),
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      state.attempts += 1;
      if (failing > 0) {
        failing -= 1;
        res.writeHead(503).end('busy');
        return;
      }
      state.received.push({ body: JSON.parse(text), headers: req.headers });
      res.writeHead(202, { 'content-type': 'application/json' }).end('{"queued":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/send`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}

/** The outbox as the admin API shows it: the newest mail to an address, bodies included. */
export async function latestOutboxMail(
  baseUrl: string,
  to: string,
): Promise<{ id: string; kind: string; subject: string; text: string; html: string; status: string } | null> {
  const headers = { authorization: `Bearer ${adminToken(TEST_SECRET)}` };
  const list = await request(`${baseUrl}/api/admin/mails?to=${encodeURIComponent(to)}&limit=1`, { headers });
  const { mails } = (await list.body.json()) as { mails: Array<{ id: string }> };
  if (mails.length === 0) return null;
  const one = await request(`${baseUrl}/api/admin/mails/${mails[0]!.id}`, { headers });
  return (await one.body.json()) as never;
}

/** The first link in a mail's text that points at the given /api/auth path. */
export function linkIn(text: string, path: string): string {
  const match = new RegExp(`https?://\\S+/api/auth${path.replace(/[/.?]/g, '\\$&')}\\S*`).exec(text);
  if (!match) throw new Error(`no ${path} link in:\n${text}`);
  return match[0];
}
