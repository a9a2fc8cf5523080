import { DomainError } from '../kernel/errors.js';

/** Better Auth's error codes and messages (reference §15), so its client's `error.code` handling works unchanged. */
export const AUTH_ERRORS = {
  USER_NOT_FOUND: 'User not found',
  FAILED_TO_CREATE_USER: 'Failed to create user',
  FAILED_TO_CREATE_SESSION: 'Failed to create session',
  FAILED_TO_UPDATE_USER: 'Failed to update user',
  FAILED_TO_GET_SESSION: 'Failed to get session',
  INVALID_PASSWORD: 'Invalid password',
  INVALID_EMAIL: 'Invalid email',
  INVALID_EMAIL_OR_PASSWORD: 'Invalid email or password',
  INVALID_TOKEN: 'Invalid token',
  INVALID_USER: 'Invalid user',
  TOKEN_EXPIRED: 'Token expired',
  FAILED_TO_GET_USER_INFO: 'Failed to get user info',
  EMAIL_NOT_VERIFIED: 'Email not verified',
  CHANGE_EMAIL_DISABLED: 'Change email is disabled',
  EMAIL_ALREADY_VERIFIED: 'Email is already verified',
  EMAIL_MISMATCH: 'Email mismatch',
  PASSWORD_TOO_SHORT: 'Password too short',
  PASSWORD_TOO_LONG: 'Password too long',
  USER_ALREADY_EXISTS: 'User already exists.',
  USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL: 'User already exists. Use another email.',
  EMAIL_CAN_NOT_BE_UPDATED: 'Email can not be updated',
  CREDENTIAL_ACCOUNT_NOT_FOUND: 'Credential account not found',
  SESSION_EXPIRED: 'Session expired. Re-authenticate to perform this action.',
  SESSION_NOT_FRESH: 'Session is not fresh',
  CROSS_SITE_NAVIGATION_LOGIN_BLOCKED: 'Cross-site navigation login blocked. This request appears to be a CSRF attack.',
  INVALID_ORIGIN: 'Invalid origin',
  INVALID_CALLBACK_URL: 'Invalid callbackURL',
  INVALID_REDIRECT_URL: 'Invalid redirectURL',
  INVALID_ERROR_CALLBACK_URL: 'Invalid errorCallbackURL',
  INVALID_NEW_USER_CALLBACK_URL: 'Invalid newUserCallbackURL',
  MISSING_OR_NULL_ORIGIN: 'Missing or null Origin',
  VALIDATION_ERROR: 'Validation Error',
  BODY_MUST_BE_AN_OBJECT: 'Body must be an object',
  PASSWORD_ALREADY_SET: 'User already has a password set',
  METHOD_NOT_ALLOWED_DEFER_SESSION_REQUIRED: 'POST method requires deferSessionRefresh to be enabled in session config',
  UNAUTHORIZED: 'Unauthorized',
  SESSION_DATA_TOO_LARGE:
    'Session data is too large to store in the cookie. Please disable session cookie caching or reduce the size of the session data',
} as const;

export type AuthErrorCode = keyof typeof AUTH_ERRORS;

export function authError(
  status: number,
  code: AuthErrorCode,
  options?: { headers?: Record<string, string> },
): DomainError {
  return new DomainError(status, code, AUTH_ERRORS[code], options);
}

/** Better Auth answers 429 without a code; X-Retry-After carries the seconds to wait. */
export function tooManyRequests(retryAfterSeconds: number): DomainError {
  return new DomainError(429, undefined, 'Too many requests. Please try again later.', {
    headers: { 'X-Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
  });
}
