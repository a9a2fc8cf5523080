import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/core/config/index.js';
import { DEFAULT_EMAIL_FLOWS, DEFAULT_MAIL } from '../../src/core/config/index.js';

const SECRET = 'a-secret-that-is-long-enough-0123456789';
const load = (env: Record<string, string>) =>
  loadConfig({ TILL_SECRET: SECRET, TILL_DATA_DIR: '/nonexistent', ...env });

describe('mail and e-mail flow configuration', () => {
  it('defaults to the outbox and Better Auth’s flow defaults, with change-email on', () => {
    const config = load({});
    expect(config.mail).toEqual(DEFAULT_MAIL);
    expect(config.mail.url).toBe('outbox');
    expect(config.emailFlows).toEqual({
      requireEmailVerification: false,
      sendVerificationOnSignUp: false,
      autoSignInAfterVerification: false,
      changeEmail: true,
      deleteUser: 'off',
      revokeSessionsOnPasswordReset: false,
    });
    expect(config.emailFlows).toEqual(DEFAULT_EMAIL_FLOWS);
  });

  it('reads every switch from the environment', () => {
    const config = load({
      TILL_MAIL_URL: 'smtps://user:pass@mail.example.com:465',
      TILL_MAIL_FROM: 'Shop <shop@example.com>',
      TILL_REQUIRE_EMAIL_VERIFICATION: 'on',
      TILL_AUTO_SIGN_IN_AFTER_VERIFICATION: 'true',
      TILL_CHANGE_EMAIL: 'off',
      TILL_DELETE_USER: 'verify',
      TILL_REVOKE_SESSIONS_ON_PASSWORD_RESET: '1',
    });
    expect(config.mail).toEqual({ url: 'smtps://user:pass@mail.example.com:465', from: 'Shop <shop@example.com>' });
    // Sending on sign-up follows required verification unless set on its own, as in Better Auth.
    expect(config.emailFlows).toEqual({
      requireEmailVerification: true,
      sendVerificationOnSignUp: true,
      autoSignInAfterVerification: true,
      changeEmail: false,
      deleteUser: 'verify',
      revokeSessionsOnPasswordReset: true,
    });
    expect(
      load({ TILL_REQUIRE_EMAIL_VERIFICATION: 'on', TILL_SEND_VERIFICATION_ON_SIGN_UP: 'off' }).emailFlows
        .sendVerificationOnSignUp,
    ).toBe(false);
    expect(load({ TILL_MAIL_URL: 'https://relay.example.com/send' }).mail.url).toBe('https://relay.example.com/send');
  });

  it('refuses what it does not understand', () => {
    expect(() => load({ TILL_MAIL_URL: 'ftp://mail.example.com' })).toThrow(ConfigError);
    expect(() => load({ TILL_MAIL_URL: 'smtp-server' })).toThrow(/TILL_MAIL_URL/);
    expect(() => load({ TILL_DELETE_USER: 'maybe' })).toThrow(/TILL_DELETE_USER must be off, on or verify/);
    expect(() => load({ TILL_CHANGE_EMAIL: 'sometimes' })).toThrow(/TILL_CHANGE_EMAIL must be on or off/);
    expect(() =>
      loadConfig({}, { secret: SECRET, dataDir: '/nonexistent', mail: { url: 'gopher://x', from: 'x' } }),
    ).toThrow(ConfigError);
  });
});
