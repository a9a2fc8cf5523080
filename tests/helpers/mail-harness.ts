import { afterAll, beforeAll } from 'vitest';
import type { TillConfig } from '../../src/core/config/index.js';
import { DEFAULT_EMAIL_FLOWS, type EmailFlowsConfig } from '../../src/core/config/index.js';
import { startTestDaemon, type TestDaemon } from './daemon.js';
import { latestOutboxMail, startSmtpServer, type TestSmtpServer } from './mail.js';

export type MailMode = 'smtp' | 'outbox';
export const MAIL_MODES: MailMode[] = ['smtp', 'outbox'];
export const MAIL_FROM = 'Till Test <till@example.com>';

export interface Letter {
  subject: string;
  text: string;
  html: string;
}

/**
 * A test daemon with somewhere for its mail to go: a real SMTP server (smtp-server) that the daemon delivers to,
 * or the outbox, read back through the admin API. Tests read "the newest mail to X" either way; with SMTP,
 * delivery is driven by draining the daemon's mail queue rather than by waiting for the worker.
 */
export interface MailHarness {
  mode: MailMode;
  daemon: TestDaemon;
  smtp: TestSmtpServer | null;
  /** The newest mail to the address; fails the test when there is none. */
  latest(to: string): Promise<Letter>;
  /** Mails written to the address (or to anyone), whatever their delivery state. */
  count(to?: string): Promise<number>;
  stop(): Promise<void>;
}

export async function startMailHarness(
  mode: MailMode,
  flows: Partial<EmailFlowsConfig> = {},
  overrides: Partial<TillConfig> = {},
): Promise<MailHarness> {
  const smtp = mode === 'smtp' ? await startSmtpServer() : null;
  const daemon = await startTestDaemon({
    mail: { url: smtp ? smtp.url : 'outbox', from: MAIL_FROM },
    emailFlows: { ...DEFAULT_EMAIL_FLOWS, ...flows },
    ...overrides,
  });
  return {
    mode,
    daemon,
    smtp,
    async latest(to) {
      // Some mails are written in a background step after the answer (password reset, sign-up).
      await daemon.core.background.settled();
      if (smtp) {
        await daemon.core.mail.drain();
        // Newest by Message-ID (the mail's time-ordered id), not by arrival: one batch is sent concurrently.
        const letter = smtp.received
          .filter((mail) => mail.to.includes(to))
          .sort((a, b) => a.messageId.localeCompare(b.messageId))
          .at(-1);
        if (!letter) throw new Error(`no mail reached ${to} over SMTP`);
        return letter;
      }
      const letter = await latestOutboxMail(daemon.url, to);
      if (!letter) throw new Error(`no mail to ${to} in the outbox`);
      return letter;
    },
    async count(to) {
      await daemon.core.background.settled();
      return (await daemon.core.mail.list({ to, limit: 500 })).length;
    },
    async stop() {
      await daemon.stop();
      await smtp?.close();
    },
  };
}

/** One harness for a whole test file or describe block. */
export function useMailHarness(
  mode: MailMode,
  flows: Partial<EmailFlowsConfig> = {},
  overrides: Partial<TillConfig> = {},
): () => MailHarness {
  let harness: MailHarness | undefined;
  beforeAll(async () => {
    harness = await startMailHarness(mode, flows, overrides);
  });
  afterAll(async () => {
    await harness?.stop();
  });
  return () => {
    if (!harness) throw new Error('the mail harness is not running (use it inside a test)');
    return harness;
  };
}
