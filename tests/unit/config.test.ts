import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/core/config/index.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const freshDir = useTempDirs('till-config-');

describe('daemon configuration', () => {
  it('generates and keeps a secret (mode 0600) for the embedded setup', () => {
    const dir = freshDir();
    const first = loadConfig({ TILL_DATA_DIR: dir });
    expect(first.secret.length).toBeGreaterThanOrEqual(32);
    expect(statSync(join(dir, 'secret')).mode & 0o777).toBe(0o600);
    expect(loadConfig({ TILL_DATA_DIR: dir }).secret).toBe(first.secret);
    expect(first.databaseUrl).toBe(`sqlite:${join(dir, 'till.db')}`);
    expect(first.baseUrl).toBe('http://127.0.0.1:4100');
    expect(first.logLevel).toBe('error');
    expect(first.rateLimit).toBe(true);
  });

  it('refuses a short secret, from the environment or from the file', () => {
    const dir = freshDir();
    expect(() => loadConfig({ TILL_DATA_DIR: dir, TILL_SECRET: 'short' })).toThrow(ConfigError);
    writeFileSync(join(dir, 'secret'), '\n');
    expect(() => loadConfig({ TILL_DATA_DIR: dir })).toThrow(/shorter than 32 characters/);
    expect(readFileSync(join(dir, 'secret'), 'utf8')).toBe('\n');
  });

  it('requires TILL_SECRET with PostgreSQL', () => {
    expect(() => loadConfig({ TILL_DATA_DIR: freshDir(), TILL_DATABASE_URL: 'postgres://localhost/x' })).toThrow(
      /TILL_SECRET is required/,
    );
  });

  it('reads the environment and refuses malformed values', () => {
    const config = loadConfig({
      TILL_DATA_DIR: freshDir(),
      TILL_PORT: '5000',
      TILL_TRUSTED_ORIGINS: 'https://a.example.com, https://*.b.example.com',
      TILL_RATE_LIMIT: 'off',
      TILL_SESSION_COOKIE_CACHE: 'on',
    });
    expect(config.port).toBe(5000);
    expect(config.trustedOrigins).toEqual(['https://a.example.com', 'https://*.b.example.com']);
    expect(config.rateLimit).toBe(false);
    expect(config.session.cookieCache).toEqual({ enabled: true, maxAge: 60 });
    expect(() => loadConfig({ TILL_DATA_DIR: freshDir(), TILL_PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ TILL_DATA_DIR: freshDir(), TILL_BCRYPT_COST: '3' })).toThrow(ConfigError);
    expect(() => loadConfig({ TILL_DATA_DIR: freshDir(), TILL_LOG_LEVEL: 'loud' })).toThrow(ConfigError);
  });

  it('keeps files in the data dir unless TILL_FILES_DIR says otherwise, up to TILL_FILES_MAX_BYTES (1 GiB)', () => {
    const dir = freshDir();
    expect(loadConfig({ TILL_DATA_DIR: dir }).files).toEqual({ dir: join(dir, 'files'), maxBytes: 1024 ** 3 });
    const elsewhere = join(freshDir(), 'blobs');
    expect(
      loadConfig({ TILL_DATA_DIR: dir, TILL_FILES_DIR: elsewhere, TILL_FILES_MAX_BYTES: '1048576' }).files,
    ).toEqual({ dir: elsewhere, maxBytes: 1048576 });
    expect(() => loadConfig({ TILL_DATA_DIR: dir, TILL_FILES_MAX_BYTES: '0' })).toThrow(/TILL_FILES_MAX_BYTES/);
    expect(() => loadConfig({ TILL_DATA_DIR: dir, TILL_FILES_MAX_BYTES: 'lots' })).toThrow(ConfigError);
  });
});
