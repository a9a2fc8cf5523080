import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_JWT, loadConfig } from '../../src/core/config/index.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const dataDir = useTempDirs('till-jwt-config-');

const env = (extra: Record<string, string> = {}) => ({
  TILL_DATA_DIR: dataDir(),
  TILL_SECRET: 'unit-test-secret-that-is-long-enough-0123',
  ...extra,
});

describe('JWT configuration', () => {
  it('defaults to EdDSA, 15-minute tokens, 30-day rotation and 2048-bit RSA', () => {
    expect(loadConfig(env()).jwt).toEqual({ alg: 'EdDSA', rsaBits: 2048, expiresIn: 900, rotationInterval: 2_592_000 });
    expect(DEFAULT_JWT).toEqual(loadConfig(env()).jwt);
  });

  it('reads TILL_JWT_ALG, TILL_JWT_RSA_BITS, TILL_JWT_EXPIRES_IN and TILL_JWT_ROTATION_INTERVAL', () => {
    const config = loadConfig(
      env({
        TILL_JWT_ALG: 'RS256',
        TILL_JWT_RSA_BITS: '4096',
        TILL_JWT_EXPIRES_IN: '300',
        TILL_JWT_ROTATION_INTERVAL: '0',
      }),
    );
    expect(config.jwt).toEqual({ alg: 'RS256', rsaBits: 4096, expiresIn: 300, rotationInterval: 0 });
    expect(loadConfig(env({ TILL_JWT_ALG: 'ES256' })).jwt.alg).toBe('ES256');
  });

  it('refuses RSA keys under 2048 bits, from the environment and from overrides', () => {
    expect(() => loadConfig(env({ TILL_JWT_ALG: 'RS256', TILL_JWT_RSA_BITS: '1024' }))).toThrow(ConfigError);
    expect(() => loadConfig(env({ TILL_JWT_RSA_BITS: '1024' }))).toThrow(/TILL_JWT_RSA_BITS .*2048/);
    expect(() => loadConfig(env({ TILL_JWT_RSA_BITS: '2047' }))).toThrow(ConfigError);
    expect(() => loadConfig(env({ TILL_JWT_RSA_BITS: 'many' }))).toThrow(ConfigError);
    expect(() => loadConfig(env(), { jwt: { ...DEFAULT_JWT, alg: 'RS256', rsaBits: 1024 } })).toThrow(ConfigError);
    expect(loadConfig(env({ TILL_JWT_RSA_BITS: '2048' })).jwt.rsaBits).toBe(2048);
  });

  it('refuses unknown algorithms and malformed lifetimes', () => {
    expect(() => loadConfig(env({ TILL_JWT_ALG: 'HS256' }))).toThrow(
      /TILL_JWT_ALG must be one of EdDSA, ES256, RS256, PS256/,
    );
    expect(() => loadConfig(env({ TILL_JWT_ALG: 'none' }))).toThrow(ConfigError);
    expect(() => loadConfig(env({ TILL_JWT_EXPIRES_IN: '0' }))).toThrow(ConfigError);
    expect(() => loadConfig(env({ TILL_JWT_ROTATION_INTERVAL: '-1' }))).toThrow(ConfigError);
  });
});
