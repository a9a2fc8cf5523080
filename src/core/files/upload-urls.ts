import { deriveKey, hmacSha256Base64Url, safeEqual } from '../kernel/crypto.js';

/**
 * Presigned part URLs, as S3 hands out: the URL itself is the credential, bound to one part of one file and valid
 * until it expires, so browsers and scripts upload without holding the merchant's token.
 */

/** Polar's S3_FILES_PRESIGN_TTL. */
export const UPLOAD_URL_TTL_MS = 60 * 60 * 1000;

export type UploadTokenCheck = 'valid' | 'invalid' | 'expired';

export function uploadUrlSigner(secret: string) {
  const key = deriveKey(secret, 'file-upload-urls');
  const signature = (fileId: string, number: number, expiresAt: number) =>
    hmacSha256Base64Url(key, `${fileId}\n${number}\n${expiresAt}`);

  return {
    /** `<expiry in epoch seconds>.<signature>`. */
    token(fileId: string, number: number, expiresAt: Date): string {
      const seconds = Math.floor(expiresAt.getTime() / 1000);
      return `${seconds}.${signature(fileId, number, seconds)}`;
    },

    check(token: string | undefined, fileId: string, number: number, now: Date): UploadTokenCheck {
      const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token ?? '');
      if (!match) return 'invalid';
      const seconds = Number(match[1]);
      // The signature is checked before the expiry so that a forged URL never learns anything from the answer.
      if (!safeEqual(match[2]!, signature(fileId, number, seconds))) return 'invalid';
      return seconds * 1000 > now.getTime() ? 'valid' : 'expired';
    },
  };
}
