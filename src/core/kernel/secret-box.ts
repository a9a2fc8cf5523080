import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { deriveKey } from './crypto.js';

/**
 * Encryption at rest for secrets the daemon must read back (private signing keys, OAuth tokens, webhook secrets):
 * AES-256-GCM under a key derived from TILL_SECRET.
 *
 * Sealed form: `v1.<iv>.<ciphertext>.<tag>`, each part base64url. The version names the format and key derivation,
 * so a later change (another cipher, a rotated secret) can still open what v1 sealed.
 *
 * `context` is authenticated but not stored: sealing with the row's table and id means a ciphertext copied into
 * another row or column no longer opens.
 */
export interface SecretBox {
  seal(plaintext: string, context?: string): string;
  open(sealed: string, context?: string): string;
}

export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const PART = /^[A-Za-z0-9_-]*$/;

export function createSecretBox(secret: string): SecretBox {
  const key = deriveKey(secret, 'secret-box');

  return {
    seal(plaintext, context = '') {
      // A random 96-bit IV per message: GCM stays safe for far more messages than Till will ever seal.
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, iv, ciphertext, cipher.getAuthTag()]
        .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
        .join('.');
    },

    open(sealed, context = '') {
      const parts = sealed.split('.');
      if (parts.length !== 4 || parts[0] !== VERSION) throw new SecretBoxError('not a sealed value of a known version');
      if (!parts.every((part) => PART.test(part))) throw new SecretBoxError('sealed value is malformed');
      const [, iv, ciphertext, tag] = parts.map((part) => Buffer.from(part, 'base64url')) as [
        Buffer,
        Buffer,
        Buffer,
        Buffer,
      ];
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretBoxError('sealed value is malformed');
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tag);
      try {
        return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
      } catch {
        // Never say which part failed: wrong secret, wrong context and tampering look alike on purpose.
        throw new SecretBoxError(
          'sealed value does not open: tampered, sealed for another context, or under another secret',
        );
      }
    },
  };
}
