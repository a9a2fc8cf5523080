import type { TillConfig } from '../config/index.js';
import { newAuthId } from '../kernel/ids.js';
import { authError } from './errors.js';
import { CREDENTIAL_PROVIDER, type Account } from './repository.js';

export function checkPasswordLength(config: Pick<TillConfig, 'password'>, password: string): void {
  if (password.length < config.password.minLength) throw authError(400, 'PASSWORD_TOO_SHORT');
  if (password.length > config.password.maxLength) throw authError(400, 'PASSWORD_TOO_LONG');
}

/** The e-mail/password account: Better Auth's `credential` provider, whose account id is the user id. */
export function credentialAccount(userId: string, passwordHash: string, now: Date): Account {
  return {
    id: newAuthId(),
    userId,
    providerId: CREDENTIAL_PROVIDER,
    accountId: userId,
    password: passwordHash,
    createdAt: now,
    updatedAt: now,
  };
}
