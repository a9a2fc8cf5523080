import { describe, expect, it } from 'vitest';
import { isRecoverableDecline } from '../../src/core/payments/declines.js';
import { createSandboxVault } from '../../src/core/payments/sandbox-methods.js';
import { createSandboxProcessor, TEST_CARDS } from '../../src/core/payments/sandbox.js';

// The sandbox answers a repeated idempotency key with its first result, so every charge here takes its own.
let charges = 0;
const request = () => ({ amount: 1000, currency: 'usd', reference: `order-${++charges}` });

describe('the sandbox vault', () => {
  const vault = createSandboxVault();
  const processor = createSandboxProcessor();

  it('keeps a card the sandbox processor then charges as that test card behaves off-session', async () => {
    const visa = await vault.setUp('tok_visa');
    expect(visa).toMatchObject({
      status: 'succeeded',
      card: { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2034 },
    });
    if (visa.status !== 'succeeded') throw new Error('unreachable');
    expect(vault.processor).toBe(processor.name);
    expect(await processor.chargeSavedMethod(visa.methodReference, request())).toMatchObject({ status: 'succeeded' });

    const failing = await vault.setUp('tok_chargeCustomerFail');
    if (failing.status !== 'succeeded') throw new Error('tok_chargeCustomerFail is kept');
    expect(await processor.chargeSavedMethod(failing.methodReference, request())).toMatchObject({
      status: 'failed',
      declineReason: 'card_declined',
    });
  });

  it('describes the card a checkout’s charge kept, and nothing it does not know', async () => {
    const charge = await processor.chargeToken('tok_mastercard', { ...request(), saveMethod: true });
    if (charge.status !== 'succeeded') throw new Error('tok_mastercard succeeds');
    expect(await vault.retrieve(charge.savedMethodReference!)).toEqual({
      brand: 'mastercard',
      last4: '4444',
      expMonth: 12,
      expYear: 2034,
    });
    expect(await vault.retrieve('sandbox_pm_tok_unknown_AAAAAAAAAAAAAAAA')).toBeNull();
    expect(await vault.retrieve('pm_123')).toBeNull();
  });

  it('refuses cards that decline with the customer present, and unknown tokens', async () => {
    expect(await vault.setUp('tok_chargeDeclined')).toMatchObject({ status: 'failed', declineReason: 'card_declined' });
    expect(await vault.setUp('tok_chargeDeclinedLostCard')).toMatchObject({
      status: 'failed',
      declineReason: 'lost_card',
    });
    expect(await vault.setUp('tok_nope')).toMatchObject({ status: 'failed', declineReason: 'invalid_token' });
  });
});

describe('declines', () => {
  it('a lost card is not recoverable; insufficient funds and a generic decline are', async () => {
    const processor = createSandboxProcessor();
    const lost = await processor.chargeToken('tok_chargeDeclinedLostCard', { ...request(), saveMethod: false });
    expect(lost).toMatchObject({ status: 'failed', declineReason: 'lost_card' });
    if (lost.status !== 'failed') throw new Error('unreachable');
    expect(isRecoverableDecline(lost.declineReason)).toBe(false);
    expect(isRecoverableDecline('insufficient_funds')).toBe(true);
    expect(isRecoverableDecline('card_declined')).toBe(true);
  });

  it('every test card has an expiry in the future of the sandbox’s tests', () => {
    for (const card of TEST_CARDS) {
      expect(card.expMonth).toBeGreaterThanOrEqual(1);
      expect(card.expMonth).toBeLessThanOrEqual(12);
      expect(card.expYear).toBeGreaterThan(2030);
    }
  });
});
