import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadBenefitPlatformsConfig } from '../../src/core/config/index.js';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' });

describe('GitHub and Discord benefit configuration', () => {
  it('defaults to the real APIs with nothing configured', () => {
    const config = loadBenefitPlatformsConfig({});
    expect(config.github).toEqual({ apiUrl: 'https://api.github.com', credentials: null, oauth: null });
    expect(config.discord).toEqual({ apiUrl: 'https://discord.com/api/v10', botToken: null, oauth: null });
  });

  it('reads a token, an App (PEM with escaped newlines) and the OAuth clients', () => {
    const config = loadBenefitPlatformsConfig({
      TILL_GITHUB_API_URL: 'http://127.0.0.1:9000/gh/',
      TILL_GITHUB_APP_ID: '12',
      TILL_GITHUB_APP_PRIVATE_KEY: String(rsa).replace(/\n/g, '\\n'),
      TILL_GITHUB_CLIENT_ID: 'id',
      TILL_GITHUB_CLIENT_SECRET: 'secret',
      TILL_DISCORD_BOT_TOKEN: 'bot',
      TILL_DISCORD_CLIENT_ID: 'did',
      TILL_DISCORD_CLIENT_SECRET: 'dsecret',
      TILL_DISCORD_OAUTH_TOKEN_URL: 'http://127.0.0.1:9000/token',
    });
    expect(config.github.apiUrl).toBe('http://127.0.0.1:9000/gh');
    expect(config.github.credentials).toEqual({ kind: 'app', appId: '12', privateKey: String(rsa) });
    expect(config.github.oauth).toEqual({
      clientId: 'id',
      clientSecret: 'secret',
      authorizeUrl: 'https://github.com/login/oauth/authorize',
      tokenUrl: 'https://github.com/login/oauth/access_token',
    });
    expect(config.discord.oauth?.tokenUrl).toBe('http://127.0.0.1:9000/token');
    expect(loadBenefitPlatformsConfig({ TILL_GITHUB_TOKEN: 'ghp_x' }).github.credentials).toEqual({
      kind: 'token',
      token: 'ghp_x',
    });
  });

  it.each([
    [{ TILL_GITHUB_API_URL: 'not a url' }, 'TILL_GITHUB_API_URL is not a URL: not a url'],
    [{ TILL_DISCORD_API_URL: 'ftp://x' }, 'TILL_DISCORD_API_URL must be an http or https URL: ftp://x'],
    [{ TILL_GITHUB_CLIENT_ID: 'id' }, 'TILL_GITHUB_CLIENT_ID and TILL_GITHUB_CLIENT_SECRET must be set together'],
    [{ TILL_DISCORD_CLIENT_SECRET: 's' }, 'TILL_DISCORD_CLIENT_ID and TILL_DISCORD_CLIENT_SECRET must be set together'],
    [{ TILL_GITHUB_APP_ID: '1' }, 'TILL_GITHUB_APP_ID and TILL_GITHUB_APP_PRIVATE_KEY must be set together'],
    [
      { TILL_GITHUB_APP_ID: 'my-app', TILL_GITHUB_APP_PRIVATE_KEY: String(rsa) },
      'TILL_GITHUB_APP_ID must be the numeric id of the GitHub App',
    ],
    [
      { TILL_GITHUB_APP_ID: '1', TILL_GITHUB_APP_PRIVATE_KEY: 'nonsense' },
      'TILL_GITHUB_APP_PRIVATE_KEY must be the GitHub App private key (RSA, PEM)',
    ],
    [
      { TILL_GITHUB_APP_ID: '1', TILL_GITHUB_APP_PRIVATE_KEY: String(ec) },
      'TILL_GITHUB_APP_PRIVATE_KEY must be the GitHub App private key (RSA, PEM)',
    ],
    [
      { TILL_GITHUB_TOKEN: 't', TILL_GITHUB_APP_ID: '1' },
      'Set either TILL_GITHUB_TOKEN or TILL_GITHUB_APP_ID with TILL_GITHUB_APP_PRIVATE_KEY, not both',
    ],
  ])('refuses %o', (env, message) => {
    expect(() => loadBenefitPlatformsConfig(env)).toThrow(new ConfigError(message));
  });
});
