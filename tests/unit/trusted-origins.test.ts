import { describe, expect, it } from 'vitest';
import { createTrustedOrigins } from '../../src/daemon/auth/trusted-origins.js';

describe('trusted origins', () => {
  const trusted = createTrustedOrigins('https://till.example.com', [
    'https://*.shop.example.com',
    'http://localhost:3000',
    'exp://',
  ]);

  it('trusts the base URL origin and the configured ones, exactly', () => {
    expect(trusted.isTrustedOrigin('https://till.example.com')).toBe(true);
    expect(trusted.isTrustedOrigin('https://TILL.example.com')).toBe(true);
    expect(trusted.isTrustedOrigin('http://till.example.com')).toBe(false);
    expect(trusted.isTrustedOrigin('https://till.example.com.evil.com')).toBe(false);
    expect(trusted.isTrustedOrigin('http://localhost:3000')).toBe(true);
    expect(trusted.isTrustedOrigin('http://localhost:3001')).toBe(false);
  });

  it('matches wildcards within the host only', () => {
    expect(trusted.isTrustedOrigin('https://a.shop.example.com')).toBe(true);
    expect(trusted.isTrustedOrigin('https://shop.example.com')).toBe(false);
    expect(trusted.isTrustedOrigin('https://evil.com/.shop.example.com')).toBe(false);
  });

  it('allows safe relative redirects and trusted absolute ones only', () => {
    for (const url of [
      '/',
      '/a/b?c=d&e=f',
      '/path+with+plus',
      '/@user',
      'https://till.example.com/x',
      'https://b.shop.example.com/y',
      'exp://anything/here',
    ]) {
      expect(trusted.isAllowedRedirect(url), url).toBe(true);
    }
    for (const url of [
      '//evil.com',
      '/\\evil.com',
      '/%2F%2Fevil.com',
      '/%5c/evil.com',
      'https://evil.com',
      'javascript:alert(1)',
      'data:text/html,x',
      'relative/path',
      '/a b',
      'mailto:x@y.z',
    ]) {
      expect(trusted.isAllowedRedirect(url), url).toBe(false);
    }
  });
});
