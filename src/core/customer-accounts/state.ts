import { randomBytes } from 'node:crypto';
import { deriveKey, hmacSha256Base64Url } from '../kernel/crypto.js';
import type { SecretBox } from '../kernel/secret-box.js';
import type { AccountPlatform } from './repository.js';

/** How long the customer has to finish at the provider. */
export const STATE_TTL_MS = 10 * 60 * 1000;

const CONTEXT = 'customer-oauth-state';

export interface ConnectState {
  customerId: string;
  platform: AccountPlatform;
  returnTo: string;
  expiresAt: number;
  nonce: string;
}

/**
 * The OAuth `state` of a customer connecting an account: sealed with the secret box (encrypted and authenticated), so
 * the callback knows which customer asked (no cookie: the portal is reached through a session token in its URL), for
 * which platform, and where to return, while the provider, which sees the state, learns none of it (`return_to` is
 * the portal's URL, session token included). The PKCE verifier is derived from the nonce with a key only the daemon
 * holds, so it never travels.
 */
export function connectStateSigner(secret: string, box: SecretBox) {
  const pkceKey = deriveKey(secret, 'customer-oauth-pkce');

  return {
    issue(input: Omit<ConnectState, 'nonce' | 'expiresAt'>, now: Date): { state: string; codeVerifier: string } {
      const payload: ConnectState = {
        ...input,
        expiresAt: Math.floor((now.getTime() + STATE_TTL_MS) / 1000),
        nonce: randomBytes(16).toString('base64url'),
      };
      return { state: box.seal(JSON.stringify(payload), CONTEXT), codeVerifier: this.verifier(payload) };
    },

    verifier(state: ConnectState): string {
      return hmacSha256Base64Url(pkceKey, state.nonce);
    },

    /** The state's content, or why it is refused. */
    open(state: string | undefined, now: Date): ConnectState | 'invalid' | 'expired' {
      let parsed: ConnectState;
      try {
        parsed = JSON.parse(box.open(state ?? '', CONTEXT)) as ConnectState;
      } catch {
        return 'invalid';
      }
      return parsed.expiresAt * 1000 > now.getTime() ? parsed : 'expired';
    },
  };
}
