import { describe, expect, it } from 'vitest';
import { uniqueEmail } from '../helpers/http.js';
import { linkIn } from '../helpers/mail.js';
import { MAIL_MODES, useMailHarness, type MailHarness } from '../helpers/mail-harness.js';
import { PASSWORD, makeClient } from './client.js';

// Better Auth's own client (1.7.25, pinned in client.ts) driving the mail flows against Till,
// with the mail read where a user would read it: an SMTP mailbox, or the outbox.

const NEW_PASSWORD = 'a brand new password';

async function signedUp(h: MailHarness) {
  const c = makeClient(h.daemon.url);
  const email = uniqueEmail('ba-mail');
  const { error } = await c.client.signUp.email({ name: 'Ada', email, password: PASSWORD });
  expect(error).toBeNull();
  return { ...c, email };
}

describe.each(MAIL_MODES)('Better Auth client, mail flows (%s)', (mode) => {
  const harness = useMailHarness(mode, { deleteUser: 'on' });

  it('sendVerificationEmail, then verifyEmail with the mailed token', async () => {
    const h = harness();
    const c = await signedUp(h);
    const sent = await c.client.sendVerificationEmail({ email: c.email, callbackURL: '/welcome' });
    expect(sent.error).toBeNull();
    expect(sent.data).toEqual({ status: true });
    const link = new URL(linkIn((await h.latest(c.email)).text, '/verify-email'));
    expect(link.searchParams.get('callbackURL')).toBe('/welcome');

    const bad = await c.client.verifyEmail({ query: { token: 'not-a-token' } });
    expect(bad.error).toMatchObject({ status: 401, code: 'INVALID_TOKEN', message: 'Invalid token' });
    const verified = await c.client.verifyEmail({ query: { token: link.searchParams.get('token')! } });
    expect(verified.error).toBeNull();
    expect(verified.data).toEqual({ status: true, user: null });
    expect((await c.client.getSession()).data?.user.emailVerified).toBe(true);

    const again = await c.client.sendVerificationEmail({ email: c.email });
    expect(again.error).toMatchObject({ status: 400, code: 'EMAIL_ALREADY_VERIFIED' });
  });

  it('requestPasswordReset, then resetPassword with the token the link hands over', async () => {
    const h = harness();
    const { email } = await signedUp(h);
    const anonymous = makeClient(h.daemon.url);
    const requested = await anonymous.client.requestPasswordReset({ email, redirectTo: '/reset' });
    expect(requested.error).toBeNull();
    expect(requested.data).toEqual({
      status: true,
      message: 'If this email exists in our system, check your email for the reset link.',
    });
    const link = linkIn((await h.latest(email)).text, '/reset-password/');
    // The page the link opens receives the token in its query, as with Better Auth.
    const landed = await fetch(link, { redirect: 'manual' });
    const token = new URL(landed.headers.get('location')!).searchParams.get('token')!;

    const reset = await anonymous.client.resetPassword({ newPassword: NEW_PASSWORD, token });
    expect(reset.error).toBeNull();
    expect(reset.data).toEqual({ status: true });
    const reused = await anonymous.client.resetPassword({ newPassword: NEW_PASSWORD, token });
    expect(reused.error).toMatchObject({ status: 400, code: 'INVALID_TOKEN' });
    const signIn = await makeClient(h.daemon.url).client.signIn.email({ email, password: NEW_PASSWORD });
    expect(signIn.error).toBeNull();
  });

  it('changeEmail, completed by verifyEmail with the token mailed to the new address', async () => {
    const h = harness();
    const c = await signedUp(h);
    const same = await c.client.changeEmail({ newEmail: c.email });
    expect(same.error).toMatchObject({ status: 400, message: 'Email is the same' });
    const newEmail = uniqueEmail('ba-moved');
    const asked = await c.client.changeEmail({ newEmail, callbackURL: '/settings' });
    expect(asked.error).toBeNull();
    expect(asked.data).toEqual({ status: true });

    const token = new URL(linkIn((await h.latest(newEmail)).text, '/verify-email')).searchParams.get('token')!;
    const done = await c.client.verifyEmail({ query: { token } });
    expect(done.error).toBeNull();
    expect(done.data).toMatchObject({ status: true, user: { email: newEmail, emailVerified: true } });
    expect((await c.client.getSession()).data?.user).toMatchObject({ email: newEmail, emailVerified: true });
  });

  it('deleteUser with the password ends the session and the account', async () => {
    const h = harness();
    const c = await signedUp(h);
    const wrong = await c.client.deleteUser({ password: 'not the password' });
    expect(wrong.error).toMatchObject({ status: 400, code: 'INVALID_PASSWORD' });
    const deleted = await c.client.deleteUser({ password: PASSWORD });
    expect(deleted.error).toBeNull();
    expect(deleted.data).toEqual({ success: true, message: 'User deleted' });
    expect(c.jar.cookies.size).toBe(0);
    expect((await c.client.getSession()).data).toBeNull();
    const signIn = await makeClient(h.daemon.url).client.signIn.email({ email: c.email, password: PASSWORD });
    expect(signIn.error).toMatchObject({ status: 401, code: 'INVALID_EMAIL_OR_PASSWORD' });
  });
});
