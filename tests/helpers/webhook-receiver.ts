import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedDelivery {
  id: string;
  timestamp: number;
  signature: string;
  headers: Record<string, string>;
  body: string;
  json: { type: string; timestamp: string; data: Record<string, unknown> };
}

/** What the receiver answers: a status (and body), or 'hang' to never answer. */
export type Answer = { status: number; body?: string; headers?: Record<string, string> } | 'hang';

/**
 * A webhook receiver on 127.0.0.1, port 0. `answer` decides each response (200 by default); every request is kept,
 * and requests left hanging can be released.
 */
export async function startReceiver(
  answer: (delivery: ReceivedDelivery) => Answer = () => ({ status: 200, body: 'ok' }),
) {
  const received: ReceivedDelivery[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)]));
      const delivery: ReceivedDelivery = {
        id: headers['webhook-id']!,
        timestamp: Number(headers['webhook-timestamp']),
        signature: headers['webhook-signature']!,
        headers,
        body,
        json: JSON.parse(body),
      };
      received.push(delivery);
      const reply = receiver.answer(delivery);
      if (reply === 'hang') {
        hanging.push(res);
        return;
      }
      res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
      res.end(reply.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const receiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    hanging,
    answer,
    /** Deliveries of one event type (or all). */
    of(type?: string): ReceivedDelivery[] {
      return type ? received.filter((delivery) => delivery.json.type === type) : received;
    },
    async close(): Promise<void> {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * Whether the delivery's signature header holds the signature the `standardwebhooks` package computes for this
 * secret, and the one Polar's validateEvent computes (HMAC keyed with the secret's UTF-8 bytes). Checked with the
 * package's own sign(), so it holds for deliveries stamped by a test clock far from the wall clock, where verify()
 * would refuse the timestamp.
 */
export function signedFor(delivery: ReceivedDelivery, secret: string): { standard: boolean; polar: boolean } {
  const signatures = delivery.signature.split(' ');
  const at = new Date(delivery.timestamp * 1000);
  const standard = new Webhook(secret).sign(delivery.id, at, delivery.body);
  const polar = new Webhook(Buffer.from(secret, 'utf8').toString('base64')).sign(delivery.id, at, delivery.body);
  return { standard: signatures.includes(standard), polar: signatures.includes(polar) };
}
