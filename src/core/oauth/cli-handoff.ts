import { usersRepository, verificationsRepository, type User } from '../auth/repository.js';
import { hashSessionToken, type SessionService } from '../auth/sessions.js';
import type { Clock } from '../kernel/clock.js';
import { safeEqual, sha256Hex } from '../kernel/crypto.js';
import type { Db } from '../database/index.js';
import { toDate } from '../database/index.js';
import { DomainError } from '../kernel/errors.js';
import { newAuthId, randomAlphanumeric } from '../kernel/ids.js';
import type { SecretBox } from '../kernel/secret-box.js';
import { pkceChallenge } from './client.js';
import type { SocialSignIn } from './link.js';

/**
 * The CLI's sign-in hand-off (RFC 8252 with a PKCE-style binding). The browser, not the CLI, comes back from the
 * provider, so the daemon gives the browser a one-time code for the loopback; the CLI trades it, with the verifier
 * only it holds, for the session token. The code alone is useless: a stolen or replayed one buys nothing.
 */
export const CLI_CODE_TTL_MS = 2 * 60 * 1000;
const CODE_PREFIX = 'cli-exchange:';
const CODE_LENGTH = 43;

interface StoredCode {
  challenge: string;
  userId: string;
  sessionId: string;
  /** Sealed, bound to this row's identifier: the table alone never yields a usable session. */
  token: string;
}

/** Loopback redirect targets (RFC 8252 §7.3): plain http to the IP literal, any port, nothing else. */
export function isLoopbackCallback(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  // `localhost` is left out on purpose: it can resolve elsewhere (RFC 8252 §8.3).
  const host = parsed.hostname;
  return (
    parsed.protocol === 'http:' &&
    (host === '127.0.0.1' || host === '[::1]') &&
    parsed.port !== '' &&
    !parsed.username &&
    !parsed.password
  );
}

const fail = (code: string, message: string) => new DomainError(400, code, message);

export function createCliHandoff(deps: { db: Db; clock: Clock; box: SecretBox; sessions: SessionService }) {
  const { db, clock, box, sessions } = deps;
  const identifier = (code: string) => CODE_PREFIX + sha256Hex(code);

  async function endSession(stored: StoredCode): Promise<void> {
    // end() wants a session; its id and token hash (the cache key) are all it reads.
    await sessions.end({ id: stored.sessionId, tokenHash: hashSessionToken(stored.token) } as Parameters<
      SessionService['end']
    >[0]);
  }

  return {
    /** Called by the OAuth callback of a CLI flow: answers the code the browser carries to the loopback. */
    async issue(signedIn: SocialSignIn, challenge: string): Promise<string> {
      const code = randomAlphanumeric(CODE_LENGTH);
      const now = clock.now();
      const id = identifier(code);
      const stored: StoredCode = {
        challenge,
        userId: signedIn.user.id,
        sessionId: signedIn.session.id,
        token: box.seal(signedIn.token, id),
      };
      await verificationsRepository(db).insert({
        id: newAuthId(),
        identifier: id,
        value: JSON.stringify(stored),
        expiresAt: new Date(now.getTime() + CLI_CODE_TTL_MS),
        createdAt: now,
        updatedAt: now,
      });
      return code;
    },

    /**
     * Single use whatever the outcome: a code shown with a wrong verifier has leaked, so it is burnt and its
     * session ended rather than left for a second guess. An expired code's session goes too.
     */
    async exchange(input: { code: string; codeVerifier: string }): Promise<{ token: string; user: User }> {
      const id = identifier(input.code);
      const row = await db('verifications').where({ identifier: id }).first();
      if (!row) throw fail('INVALID_EXCHANGE_CODE', 'Invalid or already used exchange code');
      const now = clock.now();
      const consumed = (await db('verifications').where({ id: row.id }).del()) > 0;
      if (!consumed) throw fail('INVALID_EXCHANGE_CODE', 'Invalid or already used exchange code');
      const stored = JSON.parse(row.value) as StoredCode;
      stored.token = box.open(stored.token, id);
      if (toDate(row.expires_at).getTime() <= now.getTime()) {
        await endSession(stored);
        throw fail('EXCHANGE_CODE_EXPIRED', 'Exchange code expired; run the sign-in again');
      }
      if (!safeEqual(pkceChallenge(input.codeVerifier), stored.challenge)) {
        await endSession(stored);
        throw fail('INVALID_CODE_VERIFIER', 'Code verifier does not match the challenge');
      }
      const user = await usersRepository(db).findById(stored.userId);
      if (!user) throw fail('INVALID_EXCHANGE_CODE', 'Invalid or already used exchange code');
      return { token: stored.token, user };
    },
  };
}

export type CliHandoff = ReturnType<typeof createCliHandoff>;
