import { deriveKey, hmacSha256Base64Url, safeEqual } from '../kernel/crypto.js';

/**
 * Signed download URLs, as Polar hands out presigned S3 URLs: the URL is the credential, bound to one downloadable
 * and the grant it came with, and valid until it expires. The grant is checked again when the bytes are asked for,
 * so a revoked grant's URLs stop working before they expire.
 */

/** Polar's S3_FILES_DOWNLOAD_TTL. */
export const DOWNLOAD_URL_TTL_MS = 60 * 60 * 1000;

export type DownloadTokenCheck = 'valid' | 'invalid' | 'expired';

export function downloadUrlSigner(secret: string) {
  const key = deriveKey(secret, 'downloadable-urls');
  const signature = (downloadableId: string, grantId: string, expiresAt: number) =>
    hmacSha256Base64Url(key, `${downloadableId}\n${grantId}\n${expiresAt}`);

  return {
    /** `<expiry in epoch seconds>.<signature>`. */
    token(downloadableId: string, grantId: string, expiresAt: Date): string {
      const seconds = Math.floor(expiresAt.getTime() / 1000);
      return `${seconds}.${signature(downloadableId, grantId, seconds)}`;
    },

    check(token: string | undefined, downloadableId: string, grantId: string, now: Date): DownloadTokenCheck {
      const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token ?? '');
      if (!match) return 'invalid';
      const seconds = Number(match[1]);
      // The signature first, so a forged URL learns nothing from the answer.
      if (!safeEqual(match[2]!, signature(downloadableId, grantId, seconds))) return 'invalid';
      return seconds * 1000 > now.getTime() ? 'valid' : 'expired';
    },
  };
}

export type DownloadUrlSigner = ReturnType<typeof downloadUrlSigner>;
