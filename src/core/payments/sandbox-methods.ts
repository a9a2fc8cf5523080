import { randomAlphanumeric } from '../kernel/ids.js';
import type { MethodSetupResult, PaymentMethodVault, SavedCard } from './methods.js';
import { testCardByToken, type TestCard } from './sandbox.js';

/**
 * The sandbox's kept methods. No state: a reference carries its test card's token, in the form the sandbox
 * processor's `chargeSavedMethod` reads (`sandbox_pm_<token>_<16 characters>`), so a card kept here charges, and
 * declines, exactly like one kept by a checkout's charge. `tests/unit/sandbox-methods.test.ts` holds the two to the
 * same form.
 */
const PREFIX = 'sandbox_pm_';
const REFERENCE = /^sandbox_pm_(tok_[A-Za-z]+)_[A-Za-z0-9]{16}$/;

function savedCard(card: TestCard): SavedCard {
  return { brand: card.brand, last4: card.number.slice(-4), expMonth: card.expMonth, expYear: card.expYear };
}

export function createSandboxVault(): PaymentMethodVault {
  return {
    processor: 'sandbox',
    async setUp(token: string): Promise<MethodSetupResult> {
      const card = testCardByToken(token);
      if (!card) {
        return {
          status: 'failed',
          declineReason: 'invalid_token',
          declineMessage: `Unknown test card token "${token}".`,
        };
      }
      // Keeping a card verifies it the way a charge with the customer present would: a card that declines then
      // cannot be kept (Stripe's SetupIntent fails the same way).
      if (card.onSession !== 'succeeds') {
        return { status: 'failed', declineReason: card.onSession.reason, declineMessage: card.onSession.message };
      }
      return {
        status: 'succeeded',
        methodReference: `${PREFIX}${card.token}_${randomAlphanumeric(16)}`,
        card: savedCard(card),
      };
    },
    async retrieve(methodReference: string): Promise<SavedCard | null> {
      const token = REFERENCE.exec(methodReference)?.[1];
      const card = token ? testCardByToken(token) : undefined;
      return card ? savedCard(card) : null;
    },
  };
}
