import { deriveKey, hmacSha256Base64Url, safeEqual } from '../kernel/crypto.js';

/**
 * Links to an order's invoice or receipt PDF, as Polar hands out presigned storage URLs: the link itself is the
 * credential, bound to one document of one order and valid for a short while, so a browser opens it without a token.
 */

export const DOCUMENT_URL_TTL_MS = 60 * 60 * 1000;

export type DocumentKind = 'invoice' | 'receipt';
export type DocumentTokenCheck = 'valid' | 'invalid' | 'expired';

export function documentUrlSigner(secret: string) {
  const key = deriveKey(secret, 'order-document-urls');
  const signature = (kind: DocumentKind, orderId: string, expiresAt: number) =>
    hmacSha256Base64Url(key, `${kind}\n${orderId}\n${expiresAt}`);

  return {
    /** `<expiry in epoch seconds>.<signature>`. */
    token(kind: DocumentKind, orderId: string, expiresAt: Date): string {
      const seconds = Math.floor(expiresAt.getTime() / 1000);
      return `${seconds}.${signature(kind, orderId, seconds)}`;
    },

    check(token: string | undefined, kind: DocumentKind, orderId: string, now: Date): DocumentTokenCheck {
      const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token ?? '');
      if (!match) return 'invalid';
      const seconds = Number(match[1]);
      // The signature is checked first, so a forged link learns nothing from the answer.
      if (!safeEqual(match[2]!, signature(kind, orderId, seconds))) return 'invalid';
      return seconds * 1000 > now.getTime() ? 'valid' : 'expired';
    },
  };
}
