import { z } from 'zod';

/** The provider's own ID token, which social sign-in and account linking both take. */
const idTokenFields = {
  token: z.string().min(1),
  nonce: z.string().optional(),
  accessToken: z.string().optional(),
  refreshToken: z.string().optional(),
};

/** Better Auth's extension points: accepted and ignored. */
const ignoredExtras = {
  additionalParams: z.record(z.string(), z.string()).optional(),
  additionalData: z.record(z.string(), z.unknown()).optional(),
};

/** Better Auth's sign-in/social body (reference §4.4); additionalParams/additionalData are accepted and ignored. */
export const socialSignInBody = z.strictObject({
  provider: z.string().min(1),
  callbackURL: z.string().optional(),
  newUserCallbackURL: z.string().optional(),
  errorCallbackURL: z.string().optional(),
  disableRedirect: z.boolean().optional(),
  scopes: z.array(z.string()).optional(),
  requestSignUp: z.boolean().optional(),
  loginHint: z.string().optional(),
  /** Till's extension for `till login --provider`: base64url SHA-256 of the verifier the CLI keeps (RFC 7636 S256). */
  cliChallenge: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/, 'expected a base64url SHA-256 digest')
    .optional(),
  idToken: z.object({ ...idTokenFields, expiresAt: z.number().optional(), user: z.unknown().optional() }).optional(),
  ...ignoredExtras,
});

export type SocialSignInBody = z.infer<typeof socialSignInBody>;

export const linkSocialBody = z.strictObject({
  provider: z.string().min(1),
  callbackURL: z.string().optional(),
  errorCallbackURL: z.string().optional(),
  disableRedirect: z.boolean().optional(),
  scopes: z.array(z.string()).optional(),
  requestSignUp: z.boolean().optional(),
  loginHint: z.string().optional(),
  idToken: z.object(idTokenFields).optional(),
  ...ignoredExtras,
});

/** `accountId` is the account row's id (list-accounts' `id`); Better Auth's older `{providerId, accountId?}` works too. */
export const unlinkAccountBody = z.strictObject({
  accountId: z.string().min(1).optional(),
  providerId: z.string().min(1).optional(),
});

/** Better Auth 1.7's strict union: an account row id, or the account cookie (which Till does not set). */
export const accountTokenBody = z.union([
  z.strictObject({ accountId: z.string().min(1), userId: z.string().optional() }),
  z.strictObject({ useAccountCookie: z.literal(true), userId: z.string().optional() }),
]);

export const accountInfoQuery = z.object({
  accountId: z.string().min(1).optional(),
  useAccountCookie: z.string().optional(),
});

/** The CLI redeems the loopback's code with the verifier behind its cliChallenge (RFC 7636's verifier alphabet). */
export const cliExchangeBody = z.strictObject({
  code: z.string().min(1).max(200),
  codeVerifier: z.string().regex(/^[A-Za-z0-9\-._~]{43,128}$/, 'expected 43 to 128 unreserved characters'),
});
