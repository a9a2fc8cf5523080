import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/daemon/app.js';
import { createLogger } from '../../src/daemon/logger.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';

describe('GET /v1/webhooks/events/stream with an out-of-range last event id', () => {
  const daemon = useTestDaemon();
  let merchant: Merchant;
  beforeAll(async () => {
    merchant = await createMerchant(daemon());
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('answers 422 for the query parameter, before any stream opens, and writes nothing to stderr', async () => {
    const consoleError = vi.spyOn(console, 'error');
    const stderr = vi.spyOn(process.stderr, 'write');
    for (const id of ['99999999999999999999', '9007199254740992']) {
      const response = await merchant.api.get('/v1/webhooks/events/stream', { query: { last_event_id: id } });
      expect(response.status, id).toBe(422);
      expect(response.json.detail[0].loc).toEqual(['query', 'last_event_id']);
    }
    expect(consoleError).not.toHaveBeenCalled();
    expect(stderr).not.toHaveBeenCalled();
  });

  it('answers 422 for the Last-Event-ID header', async () => {
    const response = await merchant.api.get('/v1/webhooks/events/stream', {
      headers: { 'last-event-id': '99999999999999999999' },
    });
    expect(response.status).toBe(422);
    expect(response.json.detail[0].loc).toEqual(['header', 'last-event-id']);
  });
});

describe('errors Koa sees after an answer started', () => {
  const daemon = useTestDaemon();

  it("are JSON log lines, never Koa's unformatted stderr output", () => {
    const lines: string[] = [];
    const app = createApp(
      daemon().core,
      createLogger('error', (line) => lines.push(line)),
    );
    const consoleError = vi.spyOn(console, 'error');
    app.emit('error', new Error('bigint out of range'), { method: 'GET', path: '/v1/webhooks/events/stream' });
    expect(consoleError).not.toHaveBeenCalled();
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 'error',
      message: 'response failed',
      path: '/v1/webhooks/events/stream',
    });
    vi.restoreAllMocks();
  });
});
