import { describe, expect, it } from 'vitest';
import { adminToken } from '../../src/core/kernel/crypto.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { DEFAULT_PASSWORD, TestClient, signUpUser } from '../helpers/http.js';

const daemon = useTestDaemon();
const client = () => new TestClient(daemon().url, { origin: daemon().url });

describe('POST /api/auth/update-user', () => {
  it('updates name and image, answers status:true and re-issues the cookie', async () => {
    const c = client();
    await signUpUser(c);
    daemon().clock.advance(1000);
    const response = await c.post('/api/auth/update-user', { name: 'New Name', image: 'https://example.com/me.png' });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ status: true });
    expect(response.setCookies.some((value) => value.startsWith('better-auth.session_token='))).toBe(true);
    const session = await c.get('/api/auth/get-session');
    expect(session.json.user.name).toBe('New Name');
    expect(session.json.user.image).toBe('https://example.com/me.png');
    expect(session.json.user.updatedAt).not.toBe(session.json.user.createdAt);
    await c.post('/api/auth/update-user', { image: null });
    expect((await c.get('/api/auth/get-session')).json.user.image).toBeNull();
  });

  it('refuses an e-mail change and an empty update', async () => {
    const c = client();
    await signUpUser(c);
    const email = await c.post('/api/auth/update-user', { email: 'other@example.com' });
    expect(email.status).toBe(400);
    expect(email.json).toEqual({ code: 'EMAIL_CAN_NOT_BE_UPDATED', message: 'Email can not be updated' });
    const array = await c.post('/api/auth/update-user', [{ name: 'x' }]);
    expect(array.json).toEqual({ code: 'BODY_MUST_BE_AN_OBJECT', message: 'Body must be an object' });
    const empty = await c.post('/api/auth/update-user', {});
    expect(empty.status).toBe(400);
    expect(empty.json).toEqual({ message: 'No fields to update' });
  });
});

describe('POST /api/auth/change-password', () => {
  it('changes the password, keeps sessions by default and answers token:null', async () => {
    const c = client();
    const { email, user } = await signUpUser(c);
    const other = client();
    await other.post('/api/auth/sign-in/email', { email, password: DEFAULT_PASSWORD });
    const response = await c.post('/api/auth/change-password', {
      currentPassword: DEFAULT_PASSWORD,
      newPassword: 'a brand new password',
    });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ token: null, user });
    expect((await other.get('/api/auth/get-session')).json).not.toBeNull();
    expect((await client().post('/api/auth/sign-in/email', { email, password: DEFAULT_PASSWORD })).status).toBe(401);
    expect((await client().post('/api/auth/sign-in/email', { email, password: 'a brand new password' })).status).toBe(
      200,
    );
  });

  it('with revokeOtherSessions ends every session and issues a new one', async () => {
    const c = client();
    const { email, token: oldToken } = await signUpUser(c);
    const other = client();
    await other.post('/api/auth/sign-in/email', { email, password: DEFAULT_PASSWORD });
    const response = await c.post('/api/auth/change-password', {
      currentPassword: DEFAULT_PASSWORD,
      newPassword: 'another new password',
      revokeOtherSessions: true,
    });
    expect(response.json.token).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(response.json.token).not.toBe(oldToken);
    expect((await other.get('/api/auth/get-session')).text).toBe('null');
    expect((await c.get('/api/auth/get-session')).json.session.token).toBe(response.json.token);
    const stale = await new TestClient(daemon().url).get('/api/auth/get-session', {
      headers: { authorization: `Bearer ${oldToken}` },
    });
    expect(stale.text).toBe('null');
  });

  it('refuses a wrong current password, a bad new one, and a user without a password', async () => {
    const c = client();
    const { user } = await signUpUser(c);
    const wrong = await c.post('/api/auth/change-password', {
      currentPassword: 'not it at all',
      newPassword: 'whatever works',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.json).toEqual({ code: 'INVALID_PASSWORD', message: 'Invalid password' });
    const short = await c.post('/api/auth/change-password', {
      currentPassword: DEFAULT_PASSWORD,
      newPassword: 'short',
    });
    expect(short.json.code).toBe('PASSWORD_TOO_SHORT');
    const long = await c.post('/api/auth/change-password', {
      currentPassword: DEFAULT_PASSWORD,
      newPassword: 'l'.repeat(129),
    });
    expect(long.json.code).toBe('PASSWORD_TOO_LONG');
    await daemon().core.db('accounts').where({ user_id: user.id }).del();
    const none = await c.post('/api/auth/change-password', {
      currentPassword: DEFAULT_PASSWORD,
      newPassword: 'whatever works',
    });
    expect(none.status).toBe(400);
    expect(none.json).toEqual({ code: 'CREDENTIAL_ACCOUNT_NOT_FOUND', message: 'Credential account not found' });
  });
});

describe('POST /api/auth/verify-password', () => {
  it('answers status:true for the right password and INVALID_PASSWORD otherwise', async () => {
    const c = client();
    await signUpUser(c);
    expect((await c.post('/api/auth/verify-password', { password: DEFAULT_PASSWORD })).json).toEqual({ status: true });
    const wrong = await c.post('/api/auth/verify-password', { password: 'nope nope nope' });
    expect(wrong.status).toBe(400);
    expect(wrong.json).toEqual({ code: 'INVALID_PASSWORD', message: 'Invalid password' });
  });
});

describe('set-password', () => {
  it('is not reachable over /api/auth (404, empty body), as in Better Auth', async () => {
    const c = client();
    await signUpUser(c);
    const response = await c.post('/api/auth/set-password', { newPassword: 'a new password' });
    expect(response.status).toBe(404);
    expect(response.text).toBe('');
  });

  it('is reachable through the admin API for a user without a password, once', async () => {
    const c = client();
    const { email, user } = await signUpUser(c);
    await daemon().core.db('accounts').where({ user_id: user.id }).del();
    const admin = new TestClient(daemon().url, {
      headers: { authorization: `Bearer ${adminToken(daemon().config.secret)}` },
    });
    const set = await admin.post('/api/admin/set-password', { email, newPassword: 'set by the operator' });
    expect(set.status).toBe(200);
    expect(set.json.user.id).toBe(user.id);
    expect((await client().post('/api/auth/sign-in/email', { email, password: 'set by the operator' })).status).toBe(
      200,
    );
    const again = await admin.post('/api/admin/set-password', { userId: user.id, newPassword: 'set by the operator' });
    expect(again.status).toBe(400);
    expect(again.json).toEqual({ code: 'PASSWORD_ALREADY_SET', message: 'User already has a password set' });
    const unknown = await admin.post('/api/admin/set-password', {
      email: 'nobody@example.com',
      newPassword: 'set by the operator',
    });
    expect(unknown.status).toBe(404);
    expect(unknown.json.code).toBe('USER_NOT_FOUND');
  });

  it('refuses the admin API without the admin token, even with a session', async () => {
    const c = client();
    await signUpUser(c);
    const response = await c.post('/api/admin/set-password', { email: 'x@example.com', newPassword: 'whatever works' });
    expect(response.status).toBe(401);
    const wrong = await new TestClient(daemon().url, { headers: { authorization: 'Bearer till_admin_wrong' } }).post(
      '/api/admin/set-password',
      {
        email: 'x@example.com',
        newPassword: 'whatever works',
      },
    );
    expect(wrong.status).toBe(401);
  });
});
