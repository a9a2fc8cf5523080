import { describe, expect, it } from 'vitest';
import { TestClient, signUpUser, uniqueEmail } from '../helpers/http.js';
import { linkIn } from '../helpers/mail.js';
import { MAIL_MODES, startMailHarness, useMailHarness, type MailHarness } from '../helpers/mail-harness.js';

async function member(h: MailHarness) {
  const client = new TestClient(h.daemon.url, { origin: h.daemon.url });
  return { client, ...(await signUpUser(client)) };
}

function pathOf(link: string): string {
  const url = new URL(link);
  return url.pathname + url.search;
}

/** Verifies the member's current address through the mailed link. */
async function verify(h: MailHarness, m: Awaited<ReturnType<typeof member>>): Promise<void> {
  await m.client.post('/api/auth/send-verification-email', { email: m.email });
  await m.client.get(pathOf(linkIn((await h.latest(m.email)).text, '/verify-email')));
  expect((await m.client.get('/api/auth/get-session')).json.user.emailVerified).toBe(true);
}

describe.each(MAIL_MODES)('change of e-mail address (%s)', (mode) => {
  const harness = useMailHarness(mode);

  it('an unverified address moves as soon as the new one is proven, and arrives verified', async () => {
    const h = harness();
    const m = await member(h);
    const newEmail = uniqueEmail('moved');
    const asked = await m.client.post('/api/auth/change-email', { newEmail, callbackURL: '/settings' });
    expect(asked.status).toBe(200);
    expect(asked.json).toEqual({ status: true });
    expect(await h.count(m.email)).toBe(0);
    // Nothing changes before the new address is proven.
    expect((await m.client.get('/api/auth/get-session')).json.user.email).toBe(m.email);

    const letter = await h.latest(newEmail);
    expect(letter.subject).toBe('Verify your new e-mail address');
    const opened = await m.client.get(pathOf(linkIn(letter.text, '/verify-email')));
    expect(opened.status).toBe(302);
    expect(opened.headers.location).toBe('/settings');
    // The session cookie is re-issued with the new address.
    expect(opened.setCookies.some((cookie) => cookie.startsWith('better-auth.session_token='))).toBe(true);
    expect((await m.client.get('/api/auth/get-session')).json.user).toMatchObject({
      email: newEmail,
      emailVerified: true,
    });

    expect(
      (await new TestClient(h.daemon.url).post('/api/auth/sign-in/email', { email: newEmail, password: m.password }))
        .status,
    ).toBe(200);
    expect(
      (await new TestClient(h.daemon.url).post('/api/auth/sign-in/email', { email: m.email, password: m.password }))
        .status,
    ).toBe(401);

    // The link is spent: the account no longer has the address it was issued for.
    const again = await m.client.get(pathOf(linkIn(letter.text, '/verify-email')));
    expect(again.headers.location).toBe('/settings?error=invalid_token');
  });

  it('a verified address must first approve the change from its own mailbox', async () => {
    const h = harness();
    const m = await member(h);
    await verify(h, m);
    const newEmail = uniqueEmail('approved');
    await m.client.post('/api/auth/change-email', { newEmail });
    expect(await h.count(newEmail)).toBe(0);
    const confirmation = await h.latest(m.email);
    expect(confirmation.subject).toBe('Confirm the change of your e-mail address');
    expect(confirmation.text).toContain(newEmail);

    // Approving it from a browser without a session works too; the answer is JSON without a callbackURL.
    const approved = await new TestClient(h.daemon.url).get(pathOf(linkIn(confirmation.text, '/verify-email')));
    expect(approved.json).toEqual({ status: true });
    expect((await m.client.get('/api/auth/get-session')).json.user.email).toBe(m.email);

    const verification = await h.latest(newEmail);
    const done = await m.client.get(pathOf(linkIn(verification.text, '/verify-email')));
    expect(done.status).toBe(200);
    expect(done.json).toMatchObject({ status: true, user: { email: newEmail, emailVerified: true } });
    expect((await m.client.get('/api/auth/get-session')).json.user).toMatchObject({
      email: newEmail,
      emailVerified: true,
    });
  });

  it('refuses the same address, bad addresses, and other users’ links', async () => {
    const h = harness();
    const m = await member(h);
    const same = await m.client.post('/api/auth/change-email', { newEmail: m.email.toUpperCase() });
    expect(same.status).toBe(400);
    expect(same.text).toBe('{"message":"Email is the same"}');
    const invalid = await m.client.post('/api/auth/change-email', { newEmail: 'not-an-address' });
    expect(invalid.status).toBe(400);
    expect(invalid.json).toEqual({ code: 'VALIDATION_ERROR', message: '[body.newEmail] Invalid email address' });
    expect(
      (await new TestClient(h.daemon.url).post('/api/auth/change-email', { newEmail: uniqueEmail() })).status,
    ).toBe(401);

    const newEmail = uniqueEmail('contested');
    await m.client.post('/api/auth/change-email', { newEmail, callbackURL: '/settings' });
    const link = linkIn((await h.latest(newEmail)).text, '/verify-email');
    const other = await member(h);
    const foreign = await other.client.get(pathOf(link));
    expect(foreign.headers.location).toBe('/settings?error=unauthorized');
    const foreignJson = await other.client.get(pathOf(link).replace(/&callbackURL=[^&]*/, ''));
    expect(foreignJson.status).toBe(401);
    expect(foreignJson.json).toEqual({ code: 'INVALID_USER', message: 'Invalid user' });
  });

  it('refuses to complete a change to an address taken in the meantime', async () => {
    const h = harness();
    const m = await member(h);
    const newEmail = uniqueEmail('raced');
    await m.client.post('/api/auth/change-email', { newEmail, callbackURL: '/settings' });
    const link = pathOf(linkIn((await h.latest(newEmail)).text, '/verify-email'));
    await signUpUser(new TestClient(h.daemon.url, { origin: h.daemon.url }), { email: newEmail });
    expect((await m.client.get(link)).headers.location).toBe('/settings?error=user_already_exists');
    const json = await m.client.get(link.replace(/&callbackURL=[^&]*/, ''));
    expect(json.status).toBe(422);
    expect(json.json).toEqual({ code: 'USER_ALREADY_EXISTS', message: 'User already exists.' });
    expect((await m.client.get('/api/auth/get-session')).json.user.email).toBe(m.email);
  });

  it('answers a taken address like a free one, and mails nobody', async () => {
    const h = harness();
    const m = await member(h);
    const other = await member(h);
    const before = await h.count();
    const taken = await m.client.post('/api/auth/change-email', { newEmail: other.email });
    const free = await m.client.post('/api/auth/change-email', { newEmail: uniqueEmail('free') });
    expect(taken.status).toBe(200);
    expect(taken.text).toBe(free.text);
    expect(await h.count()).toBe(before + 1);
    expect(await h.count(other.email)).toBe(0);
  });
});

describe('change of e-mail address turned off', () => {
  it('answers 400 CHANGE_EMAIL_DISABLED', async () => {
    const h = await startMailHarness('outbox', { changeEmail: false });
    try {
      const m = await member(h);
      const refused = await m.client.post('/api/auth/change-email', { newEmail: uniqueEmail() });
      expect(refused.status).toBe(400);
      expect(refused.json).toEqual({ code: 'CHANGE_EMAIL_DISABLED', message: 'Change email is disabled' });
    } finally {
      await h.stop();
    }
  });
});
