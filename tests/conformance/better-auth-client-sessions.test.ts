import { describe, expect, it } from 'vitest';
import { DAY, MINUTE } from '../../src/core/kernel/clock.js';
import { uniqueEmail } from '../helpers/http.js';
import { PASSWORD, sessionOf, started, useClientDaemon } from './client.js';

// Better Auth's own client (1.7.25, see client.ts) against /api/auth: updating the user, changing the password,
// listing and revoking sessions.

const { daemon, newClient, signedUp, signedIn } = useClientDaemon();

describe('Better Auth client against Till', () => {
  it('updateUser changes the name and getSession shows it', async () => {
    daemon().clock.set(started);
    const c = await signedUp('Old Name');
    daemon().clock.advance(MINUTE);
    const { data, error } = await c.client.updateUser({ name: 'New Name', image: 'https://example.com/a.png' });
    expect(error).toBeNull();
    expect(data).toEqual({ status: true });
    const session = await sessionOf(c);
    expect(session?.user.name).toBe('New Name');
    expect(session?.user.image).toBe('https://example.com/a.png');
    expect(session?.user.updatedAt.getTime()).toBe(started.getTime() + MINUTE);
    expect(session?.user.createdAt.getTime()).toBe(started.getTime());

    const cleared = await c.client.updateUser({ image: null });
    expect(cleared.error).toBeNull();
    expect((await sessionOf(c))?.user).toMatchObject({ name: 'New Name', image: null });

    // Better Auth refuses e-mail changes through update-user.
    const email = await c.client.updateUser({ email: uniqueEmail('other') } as never);
    expect(email.error).toMatchObject({ status: 400, code: 'EMAIL_CAN_NOT_BE_UPDATED' });
  });

  it('changePassword without revoking keeps other sessions and returns token null', async () => {
    const a = await signedUp('Katherine');
    const b = await signedIn(a.email);
    const newPassword = 'a brand new password';
    const { data, error } = await a.client.changePassword({
      currentPassword: PASSWORD,
      newPassword,
      revokeOtherSessions: false,
    });
    expect(error).toBeNull();
    expect(data!.token).toBeNull();
    expect(data!.user).toMatchObject({ id: a.userId, email: a.email });
    expect(data!.user.updatedAt).toBeInstanceOf(Date);
    expect(a.jar.sessionToken()).toBe(a.token);
    expect((await sessionOf(a))?.session.token).toBe(a.token);
    expect((await sessionOf(b))?.user.id).toBe(a.userId);

    const old = await newClient().client.signIn.email({ email: a.email, password: PASSWORD });
    expect(old.error).toMatchObject({ status: 401, code: 'INVALID_EMAIL_OR_PASSWORD' });
    await signedIn(a.email, newPassword);
  });

  it('changePassword with revokeOtherSessions ends every other session and re-issues the cookie', async () => {
    const a = await signedUp('Dorothy');
    const b = await signedIn(a.email);
    const newPassword = 'another new password';
    const { data, error } = await a.client.changePassword({
      currentPassword: PASSWORD,
      newPassword,
      revokeOtherSessions: true,
    });
    expect(error).toBeNull();
    expect(data!.token).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(data!.token).not.toBe(a.token);
    expect(data!.user.id).toBe(a.userId);
    expect(a.jar.sessionToken()).toBe(data!.token);
    expect((await sessionOf(a))?.session.token).toBe(data!.token);
    expect(await sessionOf(b)).toBeNull();
  });

  it('changePassword with a wrong current password is 400 INVALID_PASSWORD; a short new one PASSWORD_TOO_SHORT', async () => {
    const a = await signedUp('Mary');
    const wrong = await a.client.changePassword({
      currentPassword: 'not my password',
      newPassword: 'whatever it is now',
    });
    expect(wrong.data).toBeNull();
    expect(wrong.error).toMatchObject({ status: 400, code: 'INVALID_PASSWORD', message: 'Invalid password' });
    const short = await a.client.changePassword({ currentPassword: PASSWORD, newPassword: 'short' });
    expect(short.error).toMatchObject({ status: 400, code: 'PASSWORD_TOO_SHORT', message: 'Password too short' });
    // Nothing changed: the old password still works.
    await signedIn(a.email);
  });

  it('listSessions shows one session per jar; revokeSession ends the other one by the listed token', async () => {
    const a = await signedUp('Barbara');
    const b = await signedIn(a.email);
    const { data, error } = await a.client.listSessions();
    expect(error).toBeNull();
    expect(data).toHaveLength(2);
    const own = data!.find((session) => session.token === a.token);
    const other = data!.find((session) => session.token !== a.token);
    expect(own).toBeDefined();
    expect(other).toBeDefined();
    for (const session of data!) {
      expect(session.userId).toBe(a.userId);
      expect(session.expiresAt).toBeInstanceOf(Date);
      expect(session.createdAt).toBeInstanceOf(Date);
    }
    // Till stores only token digests: another session's token is its 64-hex digest, which still revokes it.
    expect(other!.token).toMatch(/^[0-9a-f]{64}$/);
    expect(other!.id).toBe((await sessionOf(b))!.session.id);

    const revoked = await a.client.revokeSession({ token: other!.token });
    expect(revoked.error).toBeNull();
    expect(revoked.data).toEqual({ status: true });
    expect(await sessionOf(b)).toBeNull();
    expect((await sessionOf(a))?.session.token).toBe(a.token);
    const after = await a.client.listSessions();
    expect(after.data!.map((session) => session.token)).toEqual([a.token]);
  });

  it('revokeSession also accepts a real session token', async () => {
    const a = await signedUp('Frances');
    const b = await signedIn(a.email);
    const revoked = await a.client.revokeSession({ token: b.token });
    expect(revoked.data).toEqual({ status: true });
    expect(await sessionOf(b)).toBeNull();
    expect((await sessionOf(a))?.user.id).toBe(a.userId);

    // Someone else's token is a silent no-op, as in Better Auth.
    const stranger = await signedUp('Stranger');
    const foreign = await a.client.revokeSession({ token: stranger.token });
    expect(foreign.data).toEqual({ status: true });
    expect((await sessionOf(stranger))?.user.id).toBe(stranger.userId);
  });

  it('revokeOtherSessions keeps only the current session', async () => {
    const a = await signedUp('Radia');
    const b = await signedIn(a.email);
    const c = await signedIn(a.email);
    expect((await a.client.listSessions()).data).toHaveLength(3);
    const { data, error } = await a.client.revokeOtherSessions();
    expect(error).toBeNull();
    expect(data).toEqual({ status: true });
    expect(await sessionOf(b)).toBeNull();
    expect(await sessionOf(c)).toBeNull();
    expect((await sessionOf(a))?.session.token).toBe(a.token);
    const list = await a.client.listSessions();
    expect(list.data!.map((session) => session.token)).toEqual([a.token]);
  });

  it('revokeSessions ends every session, the current one included, and clears the cookies', async () => {
    const a = await signedUp('Annie');
    const b = await signedIn(a.email);
    const { data, error } = await a.client.revokeSessions();
    expect(error).toBeNull();
    expect(data).toEqual({ status: true });
    expect(a.jar.cookies.size).toBe(0);
    expect(await sessionOf(a)).toBeNull();
    expect(await sessionOf(b)).toBeNull();
  });

  it('session routes need a session: 401 UNAUTHORIZED', async () => {
    const c = newClient();
    for (const result of [
      await c.client.listSessions(),
      await c.client.updateUser({ name: 'x' }),
      await c.client.revokeOtherSessions(),
    ]) {
      expect(result.data).toBeNull();
      expect(result.error).toMatchObject({ status: 401, code: 'UNAUTHORIZED', message: 'Unauthorized' });
    }
    // Signing out without a session still succeeds.
    expect((await c.client.signOut()).data).toEqual({ success: true });
  });

  it('listSessions on a session older than a day is 403 SESSION_NOT_FRESH', async () => {
    daemon().clock.set(started);
    const a = await signedUp('Evelyn');
    daemon().clock.advance(DAY + MINUTE);
    const { data, error } = await a.client.listSessions();
    expect(data).toBeNull();
    expect(error).toMatchObject({ status: 403, code: 'SESSION_NOT_FRESH', message: 'Session is not fresh' });
    daemon().clock.set(started);
  });
});
