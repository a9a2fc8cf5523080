import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken } from '../../src/core/kernel/crypto.js';
import { MINUTE } from '../../src/core/kernel/clock.js';
import { DEFAULT_EMAIL_FLOWS } from '../../src/core/config/index.js';
import { mailsRepository } from '../../src/core/mail/repository.js';
import { MAIL_RETRY, retryDelayMs } from '../../src/core/mail/service.js';
import { TEST_SECRET, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { createTestDatabase, testDialect } from '../helpers/database.js';
import { TestClient, signUpUser, uniqueEmail } from '../helpers/http.js';
import { linkIn, startRelay, startSmtpServer, type TestRelay, type TestSmtpServer } from '../helpers/mail.js';
import { MAIL_FROM, useMailHarness, type MailHarness } from '../helpers/mail-harness.js';

const CONTENT = { subject: 'Hello', text: 'Plain body https://example.com/x\n', html: '<p>HTML body</p>' };

async function enqueue(daemon: TestDaemon, to = uniqueEmail('direct')): Promise<{ id: string; to: string }> {
  const id = await daemon.core.mail.enqueue(daemon.core.db, { kind: 'test', to, userId: null, content: CONTENT });
  return { id, to };
}

describe('delivery over SMTP', () => {
  const harness = useMailHarness('smtp');
  const smtp = (): TestSmtpServer => harness().smtp!;

  it('sends from TILL_MAIL_FROM with text and HTML parts, the mail id as Message-ID, and records it sent', async () => {
    const h = harness();
    const { email } = await signUpUser(new TestClient(h.daemon.url, { origin: h.daemon.url }));
    await new TestClient(h.daemon.url).post('/api/auth/request-password-reset', { email, redirectTo: '/reset' });
    await h.daemon.core.background.settled();
    await h.daemon.core.mail.drain();
    const letter = smtp().received.find((mail) => mail.to.includes(email))!;
    expect(letter.from).toBe(MAIL_FROM);
    expect(letter.subject).toBe('Reset your password');
    const link = linkIn(letter.text, '/reset-password/');
    expect(letter.html).toContain(link.replace(/&/g, '&amp;'));
    const [row] = await h.daemon.core.mail.list({ to: email });
    expect(letter.messageId).toBe(`<${row!.id}@till>`);
    expect(row).toMatchObject({
      kind: 'reset-password',
      status: 'sent',
      attempts: 1,
      from: MAIL_FROM,
      lastError: null,
    });
    expect(row!.sentAt).toEqual(h.daemon.clock.now());
  });

  it('keeps bodies sealed at rest', async () => {
    const h = harness();
    const { id } = await enqueue(h.daemon);
    const raw = await h.daemon.core.db('mails').where({ id }).first();
    expect(raw.text_body).toMatch(/^v1\./);
    expect(raw.text_body).not.toContain('Plain body');
    expect(raw.html_body).not.toContain('HTML body');
    expect((await h.daemon.core.mail.get(id))!.text).toBe(CONTENT.text);
  });

  it('retries a rejected mail after the backoff, and sends it once', async () => {
    const h = harness();
    // Whatever earlier tests left on its way out is delivered first, so the counts below are this test's own.
    await h.daemon.core.mail.drain();
    smtp().rejectNext(1);
    const before = smtp().attempts;
    const { id, to } = await enqueue(h.daemon);
    await h.daemon.core.mail.drain();
    expect(smtp().attempts).toBe(before + 1);
    let mail = (await h.daemon.core.mail.get(id))!;
    expect(mail).toMatchObject({ status: 'pending', attempts: 1 });
    expect(mail.lastError).toContain('451');
    expect(mail.nextAttemptAt).toEqual(new Date(h.daemon.clock.now().getTime() + MAIL_RETRY.baseDelayMs));

    // Not due yet: nothing happens until the clock reaches the retry time.
    h.daemon.clock.advance(MAIL_RETRY.baseDelayMs - 1);
    await h.daemon.core.mail.drain();
    expect(smtp().attempts).toBe(before + 1);
    h.daemon.clock.advance(1);
    await h.daemon.core.mail.drain();
    mail = (await h.daemon.core.mail.get(id))!;
    expect(mail).toMatchObject({ status: 'sent', attempts: 2, lastError: null });
    expect(smtp().received.filter((letter) => letter.to.includes(to))).toHaveLength(1);
  });

  it('backs off exponentially and gives up after the last attempt', async () => {
    const h = harness();
    await h.daemon.core.mail.drain();
    smtp().rejectNext(1000);
    try {
      const { id } = await enqueue(h.daemon);
      await h.daemon.core.mail.drain();
      for (let attempt = 1; attempt < MAIL_RETRY.maxAttempts; attempt++) {
        const mail = (await h.daemon.core.mail.get(id))!;
        expect(mail).toMatchObject({ status: 'pending', attempts: attempt });
        expect(mail.nextAttemptAt!.getTime() - mail.updatedAt.getTime()).toBe(retryDelayMs(attempt));
        h.daemon.clock.advance(retryDelayMs(attempt));
        await h.daemon.core.mail.drain();
      }
      expect(await h.daemon.core.mail.get(id)).toMatchObject({
        status: 'failed',
        attempts: MAIL_RETRY.maxAttempts,
        nextAttemptAt: null,
      });
      expect([1, 2, 3, 8, 9].map(retryDelayMs)).toEqual([30_000, 60_000, 120_000, 3_600_000, 3_600_000]);
    } finally {
      smtp().rejectNext(0);
    }
  });

  it('takes over a claim whose worker died, once its lease has run out', async () => {
    const h = harness();
    const { db, clock } = h.daemon.core;
    await h.daemon.core.mail.drain();
    const before = smtp().received.length;
    // Enqueued and claimed in one transaction: as if a worker had claimed the mail and died before sending it.
    const id = await db.transaction(async (trx) => {
      const mailId = await h.daemon.core.mail.enqueue(trx, {
        kind: 'test',
        to: uniqueEmail('orphan'),
        userId: null,
        content: CONTENT,
      });
      const claimed = await mailsRepository(trx).claimDue(
        clock.now(),
        new Date(clock.now().getTime() + MAIL_RETRY.leaseMs),
        100,
      );
      expect(claimed.map((mail) => mail.id)).toContain(mailId);
      return mailId;
    });
    await h.daemon.core.mail.drain();
    expect(smtp().received.length).toBe(before);
    h.daemon.clock.advance(MAIL_RETRY.leaseMs);
    await h.daemon.core.mail.drain();
    expect(smtp().received.length).toBe(before + 1);
    expect(await h.daemon.core.mail.get(id)).toMatchObject({ status: 'sent', attempts: 2 });
  });

  it('never sends one mail twice, however many deliveries run at once', async () => {
    const h = harness();
    await h.daemon.core.mail.drain();
    const before = smtp().received.length;
    const ids = await h.daemon.core.db.transaction(async (trx) =>
      Promise.all(
        Array.from({ length: 25 }, () =>
          h.daemon.core.mail.enqueue(trx, { kind: 'test', to: uniqueEmail('bulk'), userId: null, content: CONTENT }),
        ),
      ),
    );
    const mail = h.daemon.core.mail;
    await Promise.all([mail.drain(), mail.drain(), mail.deliverDue(), mail.deliverDue(), mail.drain()]);
    await mail.drain();
    const delivered = smtp()
      .received.slice(before)
      .map((letter) => letter.messageId);
    expect(delivered.sort()).toEqual(ids.map((id) => `<${id}@till>`).sort());
  });

  it('writes no mail for a change that rolled back', async () => {
    const h = harness();
    const to = uniqueEmail('rolled-back');
    await expect(
      h.daemon.core.db.transaction(async (trx) => {
        await h.daemon.core.mail.enqueue(trx, { kind: 'test', to, userId: null, content: CONTENT });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    await h.daemon.core.mail.drain();
    expect(await h.count(to)).toBe(0);
    expect(smtp().received.some((letter) => letter.to.includes(to))).toBe(false);
  });
});

// Only on PostgreSQL, where several daemons share a database and their workers compete for the same rows.
describe.runIf(testDialect === 'postgres')('several daemons', () => {
  it('PostgreSQL: workers on two daemons deliver every mail exactly once', async () => {
    const smtp = await startSmtpServer();
    const database = await createTestDatabase();
    const overrides = {
      databaseUrl: database.url,
      mail: { url: smtp.url, from: MAIL_FROM },
      emailFlows: DEFAULT_EMAIL_FLOWS,
    };
    const [a, b] = await Promise.all([startTestDaemon(overrides), startTestDaemon(overrides)]);
    try {
      const ids = await a.core.db.transaction(async (trx) =>
        Promise.all(
          Array.from({ length: 40 }, () =>
            a.core.mail.enqueue(trx, { kind: 'test', to: uniqueEmail('shared'), userId: null, content: CONTENT }),
          ),
        ),
      );
      await Promise.all([a.core.mail.drain(), b.core.mail.drain(), b.core.mail.drain()]);
      await Promise.all([a.core.mail.drain(), b.core.mail.drain()]);
      expect(smtp.received.map((letter) => letter.messageId).sort()).toEqual(ids.map((id) => `<${id}@till>`).sort());
    } finally {
      await Promise.all([a.close(), b.close()]);
      await database.drop();
      await smtp.close();
    }
  });
});

describe('delivery through an HTTP relay', () => {
  let relay: TestRelay;
  let daemon: TestDaemon;
  beforeAll(async () => {
    relay = await startRelay();
    daemon = await startTestDaemon({ mail: { url: relay.url, from: MAIL_FROM } });
  });
  afterAll(async () => {
    await daemon?.stop();
    await relay?.close();
  });

  it('posts {from, to, subject, text, html} as JSON and counts a 2xx as sent; retries otherwise', async () => {
    relay.failNext(1);
    const { id, to } = await enqueue(daemon);
    await daemon.core.mail.drain();
    expect(relay.attempts).toBe(1);
    expect(await daemon.core.mail.get(id)).toMatchObject({
      status: 'pending',
      lastError: 'mail relay answered HTTP 503: busy',
    });
    daemon.clock.advance(MAIL_RETRY.baseDelayMs);
    await daemon.core.mail.drain();
    expect(relay.received).toHaveLength(1);
    const [{ body, headers }] = relay.received as [TestRelay['received'][0]];
    expect(body).toEqual({ from: MAIL_FROM, to, ...CONTENT });
    expect(headers['content-type']).toBe('application/json');
    expect(headers['idempotency-key']).toBe(id);
    expect(await daemon.core.mail.get(id)).toMatchObject({ status: 'sent', attempts: 2 });
  });
});

describe('the outbox', () => {
  const harness = useMailHarness('outbox');
  const admin = (h: MailHarness) =>
    new TestClient(h.daemon.url, { headers: { authorization: `Bearer ${adminToken(TEST_SECRET)}` } });

  it('keeps mail without sending it, for the admin API to show', async () => {
    const h = harness();
    const { id, to } = await enqueue(h.daemon);
    const other = await enqueue(h.daemon);
    await h.daemon.core.mail.drain();
    h.daemon.clock.advance(10 * MINUTE);
    await h.daemon.core.mail.drain();
    expect(await h.daemon.core.mail.get(id)).toMatchObject({ status: 'stored', attempts: 0, nextAttemptAt: null });

    const all = await admin(h).get('/api/admin/mails');
    expect(all.status).toBe(200);
    expect(all.json.mails.map((mail: { id: string }) => mail.id).slice(0, 2)).toEqual([other.id, id]);
    const filtered = await admin(h).get(`/api/admin/mails?to=${encodeURIComponent(to.toUpperCase())}`);
    expect(filtered.json.mails).toEqual([
      {
        id,
        kind: 'test',
        userId: null,
        from: MAIL_FROM,
        to,
        subject: 'Hello',
        status: 'stored',
        attempts: 0,
        nextAttemptAt: null,
        lastError: null,
        sentAt: null,
        createdAt: expect.any(String),
      },
    ]);
    const shown = await admin(h).get(`/api/admin/mails/${id}`);
    expect(shown.json).toMatchObject({ id, to, text: CONTENT.text, html: CONTENT.html });
  });

  it('answers only to the admin token', async () => {
    const h = harness();
    const { id } = await enqueue(h.daemon);
    expect((await new TestClient(h.daemon.url).get('/api/admin/mails')).status).toBe(401);
    const { token } = await signUpUser(new TestClient(h.daemon.url, { origin: h.daemon.url }));
    expect(
      (
        await new TestClient(h.daemon.url).get(`/api/admin/mails/${id}`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).status,
    ).toBe(401);
    const missing = await admin(h).get('/api/admin/mails/0190f0e0-0000-7000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ code: 'NOT_FOUND', message: 'Mail not found' });
    expect((await admin(h).get('/api/admin/mails?limit=0')).json.code).toBe('VALIDATION_ERROR');
  });
});
