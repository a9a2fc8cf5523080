import { describe, expect, it } from 'vitest';
import { createSandboxProcessor, testCardByNumber } from '../../src/core/payments/sandbox.js';

let keys = 0;
/** A new idempotency key each time: the sandbox answers a repeated key with its first result. */
const request = () => ({ amount: 1000, currency: 'usd', reference: `ref-${++keys}`, saveMethod: true });

describe('sandbox processor', () => {
  const processor = createSandboxProcessor();

  it('charges tok_visa and keeps the method for renewals that also succeed', async () => {
    const charge = await processor.chargeToken('tok_visa', request());
    expect(charge).toMatchObject({ status: 'succeeded', card: { brand: 'visa', last4: '4242' } });
    if (charge.status !== 'succeeded') throw new Error('unreachable');
    expect((await processor.chargeSavedMethod(charge.savedMethodReference!, request())).status).toBe('succeeded');
  });

  it('declines tok_chargeDeclined and tok_chargeDeclinedInsufficientFunds with their reasons', async () => {
    expect(await processor.chargeToken('tok_chargeDeclined', request())).toMatchObject({
      status: 'failed',
      declineReason: 'card_declined',
      declineMessage: 'Your card was declined.',
    });
    expect(await processor.chargeToken('tok_chargeDeclinedInsufficientFunds', request())).toMatchObject({
      status: 'failed',
      declineReason: 'insufficient_funds',
    });
  });

  it('lets tok_chargeCustomerFail pay now and fail on renewal', async () => {
    const charge = await processor.chargeToken('tok_chargeCustomerFail', request());
    expect(charge.status).toBe('succeeded');
    if (charge.status !== 'succeeded') throw new Error('unreachable');
    expect(await processor.chargeSavedMethod(charge.savedMethodReference!, request())).toMatchObject({
      status: 'failed',
      declineReason: 'card_declined',
    });
  });

  it('fails unknown tokens and unknown kept methods without throwing', async () => {
    expect(await processor.chargeToken('tok_nonsense', request())).toMatchObject({
      status: 'failed',
      declineReason: 'invalid_token',
    });
    expect(await processor.chargeSavedMethod('pm_elsewhere', request())).toMatchObject({
      status: 'failed',
      declineReason: 'payment_method_missing',
    });
  });

  it('refunds its own charges only', async () => {
    const charge = await processor.chargeToken('tok_visa', request());
    expect(
      (await processor.refund(charge.processorReference, { amount: 500, currency: 'usd', reference: 'r1' })).status,
    ).toBe('succeeded');
    expect((await processor.refund('ch_stripe', { amount: 500, currency: 'usd', reference: 'r2' })).status).toBe(
      'failed',
    );
  });

  it('maps the hosted page’s card numbers to the tokens', () => {
    expect(testCardByNumber('4242 4242 4242 4242')?.token).toBe('tok_visa');
    expect(testCardByNumber('4000-0000-0000-0341')?.token).toBe('tok_chargeCustomerFail');
    expect(testCardByNumber('1234')).toBeUndefined();
  });
});
