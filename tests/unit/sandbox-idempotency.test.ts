import { describe, expect, it } from 'vitest';
import { createSandboxProcessor } from '../../src/core/payments/sandbox.js';

describe('the sandbox processor keeps what it did under each idempotency key', () => {
  const request = { amount: 1000, currency: 'usd', saveMethod: false };

  it('a repeated charge key charges once and answers with the first result, whatever the card', async () => {
    const sandbox = createSandboxProcessor();
    expect(await sandbox.findCharge('checkout-1:1')).toBeNull();
    const first = await sandbox.chargeToken('tok_visa', { ...request, reference: 'checkout-1:1' });
    expect(first.status).toBe('succeeded');
    const again = await sandbox.chargeToken('tok_chargeDeclined', { ...request, reference: 'checkout-1:1' });
    expect(again).toEqual(first);
    expect(await sandbox.findCharge('checkout-1:1')).toEqual(first);
    // A new key is a new charge.
    const next = await sandbox.chargeToken('tok_chargeDeclined', { ...request, reference: 'checkout-1:2' });
    expect(next.status).toBe('failed');
  });

  it('a repeated refund key refunds once', async () => {
    const sandbox = createSandboxProcessor();
    const charge = await sandbox.chargeToken('tok_visa', { ...request, reference: 'checkout-2:1' });
    expect(await sandbox.findRefund('refund-1')).toBeNull();
    const refund = { amount: 400, currency: 'usd', reference: 'refund-1' };
    const first = await sandbox.refund(charge.processorReference, refund);
    expect(first.status).toBe('succeeded');
    expect(await sandbox.refund(charge.processorReference, refund)).toEqual(first);
    expect(await sandbox.findRefund('refund-1')).toEqual(first);
    // Charges and refunds are kept apart: a refund key says nothing about a charge with the same name.
    expect(await sandbox.findCharge('refund-1')).toBeNull();
  });
});
