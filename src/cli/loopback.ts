import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the browser brought back to the loopback: the daemon's one-time code, or the flow's error. */
export type LoopbackResult = { code: string } | { error: string; description?: string };

const page = (title: string, text: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head>` +
  `<body style="font-family:sans-serif;margin:4em auto;max-width:32em"><h1>${title}</h1><p>${text}</p></body></html>`;

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The RFC 8252 loopback listener: 127.0.0.1 only, a random port, and a random path, so stray requests (favicon,
 * a page probing local ports) are turned away and only the daemon's redirect for this run is taken.
 */
export async function startLoopback(): Promise<{
  callbackURL: string;
  result: Promise<LoopbackResult>;
  close(): void;
}> {
  const path = `/till-login/${randomBytes(16).toString('hex')}`;
  let settle!: (result: LoopbackResult) => void;
  const result = new Promise<LoopbackResult>((resolve) => (settle = resolve));
  let expectedState: string | null = null;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const code = url.searchParams.get('code');
    const error = url.searchParams.get('error');
    const state = url.searchParams.get('state');
    // The first answer fixes the state; anything later (a reload, another tab) is not this sign-in's.
    if (
      req.method !== 'GET' ||
      url.pathname !== path ||
      (!code && !error) ||
      (expectedState !== null && state !== expectedState)
    ) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
      return;
    }
    expectedState = state ?? '';
    const headers = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', connection: 'close' };
    if (code) {
      // Settled once the page is out, so the CLI exiting right after cannot cut the browser off.
      res
        .writeHead(200, headers)
        .end(page('Signed in', 'You can close this window and return to the terminal.'), () => settle({ code }));
    } else {
      const description = url.searchParams.get('error_description') ?? undefined;
      const text = `${escape(error!)}${description ? `: ${escape(description)}` : ''}. You can close this window.`;
      res.writeHead(400, headers).end(page('Sign-in failed', text), () => settle({ error: error!, description }));
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    callbackURL: `http://127.0.0.1:${port}${path}`,
    result,
    close: () => {
      server.close();
      server.closeIdleConnections();
    },
  };
}
