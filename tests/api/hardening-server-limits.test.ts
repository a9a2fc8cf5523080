import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, loadServerLimits } from '../../src/daemon/limits.js';
import { startTestDaemon, useTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uploadFile } from '../helpers/files.js';
import { TestClient } from '../helpers/http.js';
import { createMerchant } from '../helpers/v1.js';

function open(daemon: TestDaemon): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(daemon.port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Resolves with what the daemon sent once it closed the connection (never by the test's own hand). */
function closedByDaemon(socket: Socket): Promise<string> {
  let received = '';
  socket.on('data', (chunk) => (received += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  return new Promise((resolve) => socket.once('close', () => resolve(received)));
}

describe('security headers', () => {
  const daemon = useTestDaemon();

  it('are on every answer: /api/auth, /v1, errors and unknown paths', async () => {
    const client = new TestClient(daemon().url);
    const merchant = await createMerchant(daemon());
    const answers = [
      await client.get('/api/auth/ok'),
      await client.get('/api/auth/get-session'),
      await client.post('/api/auth/sign-in/email', { email: 'nobody@example.com', password: 'wrong password!' }),
      await merchant.api.get('/v1/products/'),
      await client.get('/v1/products/'),
      await client.get('/nowhere'),
    ];
    for (const answer of answers) {
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['x-frame-options']).toBe('DENY');
      expect(answer.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(answer.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
    }
  });

  it('a file download keeps its own sandboxing CSP and may be embedded, as before', async () => {
    const merchant = await createMerchant(daemon());
    const file = await uploadFile(merchant.api);
    const download = await merchant.api.get(`/v1/files/${file.id}/download`);
    expect(download.status).toBe(200);
    expect(download.headers['x-content-type-options']).toBe('nosniff');
    expect(download.headers['content-security-policy']).toBe("default-src 'none'; style-src 'unsafe-inline'; sandbox");
    expect(download.headers['x-frame-options']).toBeUndefined();
  });

  it('an over-large header is answered 431', async () => {
    const response = await new TestClient(daemon().url).get('/api/auth/ok', {
      headers: { 'x-padding': 'x'.repeat(DEFAULT_LIMITS.maxHeaderBytes + 1) },
    });
    expect(response.status).toBe(431);
  });
});

describe('slow clients and many connections', () => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startTestDaemon(
      {},
      { limits: { headersTimeoutMs: 300, requestTimeoutMs: 600, maxConnectionsPerClient: 4 } },
    );
  });
  afterAll(async () => {
    await daemon?.stop();
  });

  it('a client that never finishes its headers is cut off', async () => {
    const socket = await open(daemon);
    const closed = closedByDaemon(socket);
    socket.write('GET /api/auth/ok HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    await closed;
    expect(socket.destroyed).toBe(true);
  });

  it('a client that never finishes its body is cut off', async () => {
    const socket = await open(daemon);
    const closed = closedByDaemon(socket);
    socket.write(
      'POST /api/auth/sign-in/email HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"email":',
    );
    const received = await closed;
    expect(received === '' || received.startsWith('HTTP/1.1 408')).toBe(true);
  });

  it('refuses connections from one address beyond the limit, and takes new ones once some close', async () => {
    const held = await Promise.all(Array.from({ length: 4 }, () => open(daemon)));
    const extra = await open(daemon);
    await closedByDaemon(extra);
    expect(extra.destroyed).toBe(true);
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await new TestClient(daemon.url).get('/api/auth/ok')).status).toBe(200);
  });
});

describe('limits from the environment', () => {
  it('reads TILL_* over the defaults and keeps the headers timeout within the request timeout', () => {
    expect(loadServerLimits({})).toEqual(DEFAULT_LIMITS);
    const limits = loadServerLimits({
      TILL_MAX_CONNECTIONS_PER_CLIENT: '0',
      TILL_REQUEST_TIMEOUT_MS: '1000',
      TILL_HEADERS_TIMEOUT_MS: '5000',
      TILL_MAX_HEADER_BYTES: '32768',
    });
    expect(limits).toMatchObject({
      maxConnectionsPerClient: 0,
      requestTimeoutMs: 1000,
      headersTimeoutMs: 1000,
      maxHeaderBytes: 32768,
    });
    expect(() => loadServerLimits({ TILL_IDLE_TIMEOUT_MS: 'soon' })).toThrow(/TILL_IDLE_TIMEOUT_MS/);
  });
});
