import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken } from '../../src/core/kernel/crypto.js';
import { TEST_SECRET } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import { linkIn } from '../helpers/mail.js';
import { startMailHarness, type MailHarness } from '../helpers/mail-harness.js';
import { PASSWORD, Sandbox } from './till.js';

const NEW_PASSWORD = 'a brand new password';
let h: MailHarness;
const sandboxes: Sandbox[] = [];

beforeAll(async () => {
  h = await startMailHarness('outbox', { deleteUser: 'on' });
});
afterAll(async () => {
  await h?.stop();
  for (const sandbox of sandboxes) sandbox.cleanup();
});

function sandbox(url = h.daemon.url): Sandbox {
  const created = new Sandbox({ TILL_URL: url, TILL_ADMIN_TOKEN: adminToken(TEST_SECRET) });
  sandboxes.push(created);
  return created;
}

async function signedUp(cli: Sandbox, email = uniqueEmail('cli-mail')): Promise<string> {
  const result = await cli.run(['signup', '--name', 'Ada', '--email', email, '--password-stdin'], {
    input: `${PASSWORD}\n`,
  });
  expect(result.exitCode, result.stderr).toBe(0);
  return email;
}

/** The newest mail to the address, through `till mail list` and `till mail show`. */
async function newestMail(cli: Sandbox, to: string): Promise<{ id: string; kind: string; text: string }> {
  const list = await cli.run(['mail', 'list', '--to', to, '--limit', '1', '--json']);
  expect(list.exitCode, list.stderr).toBe(0);
  const show = await cli.run(['mail', 'show', list.json[0].id, '--json']);
  expect(show.exitCode, show.stderr).toBe(0);
  return show.json;
}

async function follow(link: string): Promise<{ status: number; json: unknown }> {
  const response = await request(link);
  return { status: response.statusCode, json: await response.body.json() };
}

describe('till verify-email and till mail', () => {
  it('mails a verification link that the operator can read and the user can open', async () => {
    const cli = sandbox();
    const email = await signedUp(cli);
    const sent = await cli.run(['verify-email', '--json']);
    expect(sent.exitCode, sent.stderr).toBe(0);
    expect(sent.json).toEqual({ sent: true, email });

    const list = await cli.run(['mail', 'list', '--to', email]);
    expect(list.exitCode).toBe(0);
    expect(list.stdout).toMatch(/\tverify-email\t.*\tstored\tVerify your e-mail address/);
    const mail = await newestMail(cli, email);
    expect(mail.kind).toBe('verify-email');
    const human = await cli.run(['mail', 'show', mail.id]);
    expect(human.stdout).toContain('Subject: Verify your e-mail address');
    expect(human.stdout).toContain(linkIn(mail.text, '/verify-email'));

    expect(await follow(linkIn(mail.text, '/verify-email'))).toEqual({
      status: 200,
      json: { status: true, user: null },
    });
    expect((await cli.run(['whoami', '--json'])).json.user.emailVerified).toBe(true);
    const again = await cli.run(['verify-email']);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain('EMAIL_ALREADY_VERIFIED');
  });

  it('mail commands need the admin token, and say so', async () => {
    const cli = new Sandbox({ TILL_URL: h.daemon.url });
    sandboxes.push(cli);
    const list = await cli.run(['mail', 'list']);
    expect(list.exitCode).toBe(4);
    expect(list.stderr).toContain('no admin token');
    const missing = await sandbox().run(['mail', 'show', 'no-such-mail']);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain('Mail not found');
  });
});

describe('till password reset', () => {
  it('mails a token, then sets a new password with it, once', async () => {
    const cli = sandbox();
    const email = await signedUp(cli);
    const requested = await cli.run(['password', 'reset', '--email', email, '--json']);
    expect(requested.exitCode, requested.stderr).toBe(0);
    expect(requested.json).toEqual({ requested: true, email });
    const token = /--token ([A-Za-z0-9]{24})/.exec((await newestMail(cli, email)).text)![1]!;

    const reset = await cli.run(['password', 'reset', '--token', token, '--password-stdin', '--json'], {
      input: `${NEW_PASSWORD}\n`,
    });
    expect(reset.exitCode, reset.stderr).toBe(0);
    expect(reset.json).toEqual({ reset: true });
    const login = await cli.run(['login', '--email', email, '--password-stdin'], { input: `${NEW_PASSWORD}\n` });
    expect(login.exitCode, login.stderr).toBe(0);

    const reused = await cli.run(['password', 'reset', '--token', token, '--password-stdin'], {
      input: `${NEW_PASSWORD}\n`,
    });
    expect(reused.exitCode).toBe(1);
    expect(reused.stderr).toContain('INVALID_TOKEN');
  });

  it('needs exactly one of --email and --token', async () => {
    const cli = sandbox();
    expect((await cli.run(['password', 'reset'])).exitCode).toBe(2);
    expect((await cli.run(['password', 'reset', '--email', 'a@example.com', '--token', 'x'])).exitCode).toBe(2);
  });
});

describe('till email change', () => {
  it('mails the new address a link that moves the account', async () => {
    const cli = sandbox();
    const email = await signedUp(cli);
    const newEmail = uniqueEmail('cli-moved');
    const asked = await cli.run(['email', 'change', '--email', newEmail, '--json']);
    expect(asked.exitCode, asked.stderr).toBe(0);
    expect(asked.json).toEqual({ requested: true, email, newEmail, mailedTo: newEmail });
    const link = linkIn((await newestMail(cli, newEmail)).text, '/verify-email');
    expect(await follow(link)).toMatchObject({
      status: 200,
      json: { status: true, user: { email: newEmail, emailVerified: true } },
    });
    expect((await cli.run(['whoami', '--json'])).json.user.email).toBe(newEmail);
  });
});

describe('till account delete', () => {
  it('asks for confirmation, which a script gives with --yes', async () => {
    const cli = sandbox();
    const email = await signedUp(cli);
    const unconfirmed = await cli.run(['account', 'delete']);
    expect(unconfirmed.exitCode).toBe(2);
    expect(unconfirmed.stderr).toContain('--yes');

    const deleted = await cli.run(['account', 'delete', '--yes', '--json']);
    expect(deleted.exitCode, deleted.stderr).toBe(0);
    expect(deleted.json).toEqual({ deleted: true, verificationSent: false, email });
    expect(JSON.parse(readFileSync(cli.configFile, 'utf8')).profiles.default.token).toBeUndefined();
    expect((await cli.run(['whoami'])).exitCode).toBe(4);
    expect((await cli.run(['login', '--email', email, '--password-stdin'], { input: `${PASSWORD}\n` })).exitCode).toBe(
      1,
    );
  });

  it('takes the password on stdin, and refuses a wrong one', async () => {
    const cli = sandbox();
    await signedUp(cli);
    const wrong = await cli.run(['account', 'delete', '--yes', '--password-stdin'], { input: 'not the password\n' });
    expect(wrong.exitCode).toBe(1);
    expect(wrong.stderr).toContain('INVALID_PASSWORD');
    const right = await cli.run(['account', 'delete', '--yes', '--password-stdin'], { input: `${PASSWORD}\n` });
    expect(right.exitCode, right.stderr).toBe(0);
    expect(right.stderr).toContain('Deleted the account');
  });

  it('with a mailed confirmation, completes with --token', async () => {
    const verifying = await startMailHarness('outbox', { deleteUser: 'verify' });
    try {
      const cli = sandbox(verifying.daemon.url);
      const email = await signedUp(cli);
      const asked = await cli.run(['account', 'delete', '--yes', '--json']);
      expect(asked.json).toEqual({ deleted: false, verificationSent: true, email });
      const token = /--token ([0-9a-z]{32})/.exec((await newestMail(cli, email)).text)![1]!;
      const done = await cli.run(['account', 'delete', '--yes', '--token', token, '--json']);
      expect(done.exitCode, done.stderr).toBe(0);
      expect(done.json.deleted).toBe(true);
    } finally {
      await verifying.stop();
    }
  });

  it('says when the daemon does not allow it', async () => {
    const off = await startMailHarness('outbox');
    try {
      const cli = sandbox(off.daemon.url);
      await signedUp(cli);
      const refused = await cli.run(['account', 'delete', '--yes']);
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toContain('TILL_DELETE_USER=off');
    } finally {
      await off.stop();
    }
  });
});

describe('fast start', () => {
  const fixture = fileURLToPath(new URL('./fixtures/forbid-heavy-modules.mjs', import.meta.url));
  it.each([
    'mail list --help',
    'account delete --help',
    'password reset --help',
    'email change --help',
    'verify-email --help',
  ])('till %s loads no Ink, React, Koa, Knex or daemon code', async (command) => {
    const result = await sandbox().run(command.split(' '), { nodeArgs: ['--import', fixture] });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
  });
});
