import { z } from 'zod';
import { TEXT_LIMITS } from '../kernel/text.js';
import { isValidEmail } from './email.js';

// Wire shapes of /api/auth (camelCase, as Better Auth). Shared by the daemon's guards and the CLI's client.
// Bodies are strict: a field the route does not know is a 400, not silently dropped.

// What the users table holds (kernel/text.ts): the same refusal on SQLite and PostgreSQL.
const userName = z.string().max(TEXT_LIMITS.name);
const userImage = z.string().max(TEXT_LIMITS.url);

// zod's e-mail format (what Better Auth checks) plus the spec's length and domain rules, reported as one issue.
const zodEmail = z.email();
const email = z
  .string()
  .refine((value) => zodEmail.safeParse(value).success && isValidEmail(value), { message: 'Invalid email address' });

export const signUpBody = z.strictObject({
  name: userName,
  email,
  password: z.string().min(1),
  image: userImage.nullish(),
  callbackURL: z.string().optional(),
  rememberMe: z.boolean().optional(),
});
export type SignUpBody = z.infer<typeof signUpBody>;

export const signInBody = z.strictObject({
  email: z.string(),
  password: z.string(),
  callbackURL: z.string().optional(),
  rememberMe: z.boolean().nullish(),
});
export type SignInBody = z.infer<typeof signInBody>;

export const getSessionQuery = z.object({
  disableCookieCache: z.enum(['true', 'false']).optional(),
  disableRefresh: z.enum(['true', 'false']).optional(),
});

export const signOutBody = z
  .strictObject({
    callbackURL: z.string().optional(),
    disableRedirect: z.boolean().optional(),
  })
  .optional();

export const revokeSessionBody = z.strictObject({ token: z.string().min(1) });
export const emptyBody = z.strictObject({}).optional();

export const updateUserBody = z.strictObject({
  name: userName.optional(),
  image: userImage.nullish(),
  // Better Auth refuses e-mail changes here with its own code; accepting the key lets the service say so.
  email: z.unknown().optional(),
});
export type UpdateUserBody = z.infer<typeof updateUserBody>;

export const changePasswordBody = z.strictObject({
  currentPassword: z.string(),
  newPassword: z.string(),
  revokeOtherSessions: z.boolean().nullish(),
});
export type ChangePasswordBody = z.infer<typeof changePasswordBody>;

export const verifyPasswordBody = z.strictObject({ password: z.string() });

export const setPasswordBody = z.strictObject({
  userId: z.string().optional(),
  email: z.string().optional(),
  newPassword: z.string(),
});

export const userWire = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  emailVerified: z.boolean(),
  image: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type UserWire = z.infer<typeof userWire>;

export const sessionWire = z.object({
  id: z.string(),
  token: z.string(),
  userId: z.string(),
  expiresAt: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  ipAddress: z.string(),
  userAgent: z.string(),
  activeOrganizationId: z.string().nullable(),
  activeTeamId: z.string().nullable().optional(),
});
export type SessionWire = z.infer<typeof sessionWire>;

export const sessionAndUserWire = z.object({ session: sessionWire, user: userWire });
export type SessionAndUserWire = z.infer<typeof sessionAndUserWire>;

export const signInResponse = z.object({
  redirect: z.boolean(),
  token: z.string(),
  url: z.string().optional(),
  user: userWire,
});
export const signUpResponse = z.object({ token: z.string().nullable(), user: userWire });
export const statusResponse = z.object({ status: z.boolean() });
export const changePasswordResponse = z.object({ token: z.string().nullable(), user: userWire });
export const authErrorBody = z.object({ message: z.string(), code: z.string().optional() });

// E-mail flows (reference §4.2, §4.3).

export const sendVerificationEmailBody = z.strictObject({ email, callbackURL: z.string().optional() });
export type SendVerificationEmailBody = z.infer<typeof sendVerificationEmailBody>;

export const verifyEmailQuery = z.object({ token: z.string(), callbackURL: z.string().optional() });

export const requestPasswordResetBody = z.strictObject({ email, redirectTo: z.string().optional() });
export type RequestPasswordResetBody = z.infer<typeof requestPasswordResetBody>;
export const requestPasswordResetResponse = z.object({ status: z.boolean(), message: z.string() });

export const resetPasswordCallbackQuery = z.object({ callbackURL: z.string() });

// The token may also come in the query string, as Better Auth allows.
export const resetPasswordBody = z.strictObject({ newPassword: z.string(), token: z.string().optional() });
export type ResetPasswordBody = z.infer<typeof resetPasswordBody>;
export const resetPasswordQuery = z.object({ token: z.string().optional() });

export const changeEmailBody = z.strictObject({ newEmail: email, callbackURL: z.string().optional() });
export type ChangeEmailBody = z.infer<typeof changeEmailBody>;

export const deleteUserBody = z
  .strictObject({ password: z.string().optional(), token: z.string().optional(), callbackURL: z.string().optional() })
  .optional();
export type DeleteUserBody = z.infer<typeof deleteUserBody>;
export const deleteUserResponse = z.object({ success: z.boolean(), message: z.string() });

export const deleteUserCallbackQuery = z.object({ token: z.string(), callbackURL: z.string().optional() });
