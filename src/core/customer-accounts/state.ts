import { randomBytes } from 'node:crypto';
import { deriveKey, hmacSha256Base64Url, safeEqual } from '../kernel/crypto.js';
import type { AccountPlatform } from './repository.js';

/** How long the customer has to finish at the provider. */
export const STATE_TTL_MS = 10 * 60 * 1000;

export interface ConnectState {
  customerId: string;
  platform: AccountPlatform;
  returnTo: string;
  expiresAt: number;
  nonce: string;
}

/**
 * The OAuth `state` of a customer connecting an account: signed, so the callback knows which customer asked (no
 * cookie: the portal is reached through a session token in its URL), for which platform, and where to return. The
 * PKCE verifier is derived from the nonce with a key only the daemon holds, so it never travels.
 */
export function connectStateSigner(secret: string) {
  const key = deriveKey(secret, 'customer-oauth-state');
  const pkceKey = deriveKey(secret, 'customer-oauth-pkce');

  return {
    issue(input: Omit<ConnectState, 'nonce' | 'expiresAt'>, now: Date): { state: string; codeVerifier: string } {
      const payload: ConnectState = {
        ...input,
        expiresAt: Math.floor((now.getTime() + STATE_TTL_MS) / 1000),
        nonce: randomBytes(16).toString('base64url'),
      };
      const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
      return { state: `${body}.${hmacSha256Base64Url(key, body)}`, codeVerifier: this.verifier(payload) };
    },

    verifier(state: ConnectState): string {
      return hmacSha256Base64Url(pkceKey, state.nonce);
    },

    /** The state's content, or why it is refused. */
    open(state: string | undefined, now: Date): ConnectState | 'invalid' | 'expired' {
      const match = /^([A-Za-z0-9_-]{1,2000})\.([A-Za-z0-9_-]{43})$/.exec(state ?? '');
      if (!match || !safeEqual(match[2]!, hmacSha256Base64Url(key, match[1]!))) return 'invalid';
      let parsed: ConnectState;
      try {
        parsed = JSON.parse(Buffer.from(match[1]!, 'base64url').toString('utf8')) as ConnectState;
      } catch {
        return 'invalid';
      }
      return parsed.expiresAt * 1000 > now.getTime() ? parsed : 'expired';
    },
  };
}
