import { errors, jwtVerify, SignJWT } from 'jose';
import { z } from 'zod';
import type { Clock } from '../kernel/clock.js';
import { deriveKey } from '../kernel/crypto.js';
import { authError } from './errors.js';

/** Seconds an e-mail verification or change-of-address link stays valid (Better Auth's default). */
export const EMAIL_TOKEN_TTL_SECONDS = 3600;

export type EmailRequestType = 'change-email-confirmation' | 'change-email-verification';

/** Better Auth's verification token claims; `userId` binds the token to one account. */
export interface EmailTokenClaims {
  email: string;
  userId?: string;
  updateTo?: string;
  requestType?: EmailRequestType;
}

const claims = z.object({
  email: z.string().min(1),
  userId: z.string().optional(),
  updateTo: z.string().optional(),
  requestType: z.enum(['change-email-confirmation', 'change-email-verification']).optional(),
});

/**
 * The stateless tokens of /verify-email: HS256 JWTs, as in Better Auth, but signed with a key derived from
 * TILL_SECRET for this purpose alone, so they cannot be confused with anything else the secret signs. Issue and
 * expiry times come from the injected clock.
 */
export function createEmailTokens(deps: { secret: string; clock: Clock }) {
  const key = new Uint8Array(deriveKey(deps.secret, 'email-verification-jwt'));

  return {
    async sign(payload: EmailTokenClaims, expiresIn = EMAIL_TOKEN_TTL_SECONDS): Promise<string> {
      const now = Math.floor(deps.clock.now().getTime() / 1000);
      return new SignJWT({ ...payload })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuedAt(now)
        .setExpirationTime(now + expiresIn)
        .sign(key);
    },

    /** The token's claims; 401 TOKEN_EXPIRED past its expiry, 401 INVALID_TOKEN for anything else wrong with it. */
    async verify(token: string): Promise<EmailTokenClaims> {
      let payload: unknown;
      try {
        ({ payload } = await jwtVerify(token, key, { algorithms: ['HS256'], currentDate: deps.clock.now() }));
      } catch (error) {
        throw authError(401, error instanceof errors.JWTExpired ? 'TOKEN_EXPIRED' : 'INVALID_TOKEN');
      }
      const parsed = claims.safeParse(payload);
      if (!parsed.success) throw authError(401, 'INVALID_TOKEN');
      return parsed.data;
    },
  };
}

export type EmailTokens = ReturnType<typeof createEmailTokens>;
