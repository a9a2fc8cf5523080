import { z } from 'zod';
import { JWT_ALGORITHMS } from '../config/index.js';
import { userWire } from '../auth/schemas.js';

// Wire shapes of Better Auth's jwt plugin: GET /api/auth/jwks and GET /api/auth/token. Shared with the CLI.

export const jwtAlgorithm = z.enum(JWT_ALGORITHMS);

/** A public key as published: the JWK members of its key type plus `alg` and `kid` (the jwks row id). */
export const publicJwk = z.looseObject({
  kty: z.enum(['OKP', 'EC', 'RSA']),
  alg: jwtAlgorithm,
  kid: z.string(),
  crv: z.string().optional(),
  x: z.string().optional(),
  y: z.string().optional(),
  n: z.string().optional(),
  e: z.string().optional(),
});
export type PublicJwk = z.infer<typeof publicJwk>;

export const jwksResponse = z.object({ keys: z.array(publicJwk) });
export type JwksResponse = z.infer<typeof jwksResponse>;

export const tokenResponse = z.object({ token: z.string() });
export type TokenResponse = z.infer<typeof tokenResponse>;

/** Claims of a token: the whole user object, as Better Auth signs it, plus the registered claims. */
export const jwtPayload = userWire.extend({
  sub: z.string(),
  iat: z.number().int(),
  exp: z.number().int(),
  iss: z.string(),
  aud: z.string(),
});
export type JwtPayload = z.infer<typeof jwtPayload>;
