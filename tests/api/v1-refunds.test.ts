import { describe, expect, it } from 'vitest';
import type { PaymentProcessor } from '../../src/core/payments/processor.js';
import { createSandboxProcessor } from '../../src/core/payments/sandbox.js';
import { createProduct } from '../helpers/catalog.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { addMember, signedInUser } from '../helpers/organizations.js';
import { paidOrder, purchase } from '../helpers/purchases.js';
import { bearerClient, createMerchant, type Merchant } from '../helpers/v1.js';

/** The sandbox, except that refunds can be made to fail (declined) or to throw (processor unreachable). */
const sandbox = createSandboxProcessor();
const faults = { refund: 'none' as 'none' | 'decline' | 'throw' };
const processor: PaymentProcessor = {
  name: sandbox.name,
  chargeToken: (token, request) => sandbox.chargeToken(token, request),
  chargeSavedMethod: (method, request) => sandbox.chargeSavedMethod(method, request),
  async refund(reference, request) {
    if (faults.refund === 'decline')
      return {
        status: 'failed',
        processorReference: `sandbox_re_failed_${request.reference}`,
        failureReason: 'insufficient_balance',
      };
    if (faults.refund === 'throw') throw new Error('connection reset by the processor');
    return sandbox.refund(reference, request);
  },
  findCharge: (reference) => sandbox.findCharge(reference),
  findRefund: (reference) => sandbox.findRefund(reference),
};

const daemon = useTestDaemon({}, { paymentProcessor: processor });

async function order(merchant: Merchant, id: string) {
  return (await merchant.api.get(`/v1/orders/${id}`)).json as {
    status: string;
    refunded_amount: number;
    refunded_tax_amount: number;
    net_amount: number;
    tax_amount: number;
  };
}

function refund(merchant: Merchant, body: Record<string, unknown>) {
  return merchant.api.post('/v1/refunds/', { reason: 'customer_request', ...body });
}

/** A one-time order of `amount` with German VAT (19 %) on top. */
async function taxedOrder(merchant: Merchant, amount: number) {
  await merchant.api.post('/v1/tax-rates/', { country: 'DE', basis_points: 1900, name: 'MwSt' });
  const product = await createProduct(merchant, {
    prices: [{ amount_type: 'fixed', price_amount: amount, price_currency: 'usd' }],
  });
  return purchase(daemon(), merchant, product.id, { customer_billing_address: { country: 'DE' } });
}

/** A small deterministic generator (mulberry32), so a failing sequence can be replayed. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('refunds', () => {
  it('refunds a whole order with all its tax, and then refuses another refund', async () => {
    const merchant = await createMerchant(daemon());
    const { order: paid } = await taxedOrder(merchant, 1000);
    expect(paid).toMatchObject({ net_amount: 1000, tax_amount: 190, total_amount: 1190 });
    const since = String(
      (
        await daemon()
          .core.db('outbox_events')
          .where({ organization_id: merchant.organization.id })
          .orderBy('id', 'desc')
          .first()
      )?.id ?? '',
    );

    const created = await refund(merchant, {
      order_id: paid.id,
      amount: 1000,
      comment: 'Sorry',
      metadata: { ticket: 'T-1' },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({
      status: 'succeeded',
      amount: 1000,
      tax_amount: 190,
      currency: 'usd',
      order_id: paid.id,
      customer_id: paid.customer_id,
      subscription_id: null,
      reason: 'customer_request',
      revoke_benefits: false,
      metadata: { ticket: 'T-1' },
      dispute: null,
      organization_id: merchant.organization.id,
    });
    expect(await order(merchant, paid.id)).toMatchObject({
      status: 'refunded',
      refunded_amount: 1000,
      refunded_tax_amount: 190,
    });
    const events = (
      await daemon()
        .core.db('outbox_events')
        .where({ organization_id: merchant.organization.id })
        .where('id', '>', since)
        .orderBy('id')
    ).map((row) => row.type);
    expect(events).toEqual(['refund.created', 'refund.updated', 'order.updated', 'order.refunded']);
    const attempts = await daemon().core.db('payment_attempts').where({ order_id: paid.id, kind: 'refund' });
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ status: 'succeeded', refund_id: created.json.id });
    expect(Number(attempts[0].amount)).toBe(1190);

    const again = await refund(merchant, { order_id: paid.id, amount: 1 });
    expect(again.status).toBe(403);
    expect(again.json.error).toBe('RefundedAlready');
  });

  it('refunds in parts, with the tax in proportion and the remainder on the last part', async () => {
    const merchant = await createMerchant(daemon());
    const { order: paid } = await taxedOrder(merchant, 1000);
    const first = await refund(merchant, { order_id: paid.id, amount: 333 });
    expect(first.json).toMatchObject({ amount: 333, tax_amount: 63 });
    expect(await order(merchant, paid.id)).toMatchObject({
      status: 'partially_refunded',
      refunded_amount: 333,
      refunded_tax_amount: 63,
    });
    const tooMuch = await refund(merchant, { order_id: paid.id, amount: 668 });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.json.detail[0]).toMatchObject({ loc: ['body', 'amount'], type: 'value_error' });
    expect(tooMuch.json.detail[0].msg).toContain('(6.67 USD)');
    const rest = await refund(merchant, { order_id: paid.id, amount: 667 });
    expect(rest.json).toMatchObject({ amount: 667, tax_amount: 127 });
    expect(await order(merchant, paid.id)).toMatchObject({
      status: 'refunded',
      refunded_amount: 1000,
      refunded_tax_amount: 190,
    });
  });

  it('never refunds more than the order under concurrent refunds: 400 + 400 + 400 of 1000', async () => {
    const merchant = await createMerchant(daemon());
    const { order: paid } = await paidOrder(daemon(), merchant, 1000);
    const responses = await Promise.all([1, 2, 3].map(() => refund(merchant, { order_id: paid.id, amount: 400 })));
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([201, 201, 422]);
    const state = await order(merchant, paid.id);
    expect(state).toMatchObject({ status: 'partially_refunded', refunded_amount: 800 });
    const rows = await daemon().core.db('refunds').where({ order_id: paid.id });
    expect(rows.reduce((sum, row) => sum + Number(row.amount), 0)).toBe(800);
    expect(rows.every((row) => row.status === 'succeeded')).toBe(true);
  });

  it('keeps Σ refunds ≤ paid over random refund sequences (sequential and concurrent)', async () => {
    const merchant = await createMerchant(daemon());
    const next = random(20261121);
    for (let round = 0; round < 6; round++) {
      const net = 1 + Math.floor(next() * 5000);
      const { order: paid } = await taxedOrder(merchant, net);
      let refunded = 0;
      let refundedTax = 0;
      for (let step = 0; step < 8; step++) {
        const concurrent = next() < 0.3;
        const amounts = Array.from({ length: concurrent ? 3 : 1 }, () => 1 + Math.floor(next() * net * 0.6));
        const responses = await Promise.all(amounts.map((amount) => refund(merchant, { order_id: paid.id, amount })));
        for (const response of responses) {
          if (response.status === 201) {
            refunded += response.json.amount;
            refundedTax += response.json.tax_amount;
          } else {
            expect([403, 422], response.text).toContain(response.status);
          }
        }
        const state = await order(merchant, paid.id);
        expect(state.refunded_amount).toBe(refunded);
        expect(state.refunded_tax_amount).toBe(refundedTax);
        expect(refunded).toBeLessThanOrEqual(paid.net_amount);
        expect(refundedTax).toBeLessThanOrEqual(paid.tax_amount);
        expect(state.status).toBe(
          refunded === 0 ? 'paid' : refunded === paid.net_amount ? 'refunded' : 'partially_refunded',
        );
      }
      const left = paid.net_amount - refunded;
      if (left > 0) expect((await refund(merchant, { order_id: paid.id, amount: left + 1 })).status).toBe(422);
      if (left > 0) expect((await refund(merchant, { order_id: paid.id, amount: left })).status).toBe(201);
      const final = await order(merchant, paid.id);
      expect(final).toMatchObject({
        status: 'refunded',
        refunded_amount: paid.net_amount,
        refunded_tax_amount: paid.tax_amount,
      });
      expect((await refund(merchant, { order_id: paid.id, amount: 1 })).json.error).toBe('RefundedAlready');
    }
  });

  it('gives the reservation back when the processor declines or cannot be reached', async () => {
    const merchant = await createMerchant(daemon());
    const { order: paid } = await paidOrder(daemon(), merchant, 1000);
    try {
      faults.refund = 'decline';
      const declined = await refund(merchant, { order_id: paid.id, amount: 1000 });
      expect(declined.status).toBe(400);
      expect(declined.json.error).toBe('RefundFailed');
      faults.refund = 'throw';
      expect((await refund(merchant, { order_id: paid.id, amount: 1000 })).status).toBe(500);
    } finally {
      faults.refund = 'none';
    }
    expect(await order(merchant, paid.id)).toMatchObject({ status: 'paid', refunded_amount: 0 });
    const failed = await merchant.api.get(`/v1/refunds/?order_id=${paid.id}&succeeded=false`);
    expect(failed.json.items.map((r: { status: string }) => r.status)).toEqual(['failed', 'failed']);
    const attempts = await daemon().core.db('payment_attempts').where({ order_id: paid.id, kind: 'refund' });
    expect(attempts.map((row) => row.status)).toEqual(['failed', 'failed']);

    const whole = await refund(merchant, { order_id: paid.id, amount: 1000 });
    expect(whole.status).toBe(201);
    expect(await order(merchant, paid.id)).toMatchObject({ status: 'refunded', refunded_amount: 1000 });
  });

  it('revokes the subscription of a refunded subscription order when asked to revoke benefits', async () => {
    const merchant = await createMerchant(daemon());
    const { order: paid, subscriptionId } = await paidOrder(daemon(), merchant, 1000, 'month');
    const kept = await refund(merchant, { order_id: paid.id, amount: 100 });
    expect(kept.json).toMatchObject({ subscription_id: subscriptionId, revoke_benefits: false });
    expect((await merchant.api.get(`/v1/subscriptions/${subscriptionId}`)).json.status).toBe('active');
    const revoking = await refund(merchant, {
      order_id: paid.id,
      amount: 100,
      revoke_benefits: true,
      reason: 'service_disruption',
    });
    expect(revoking.json).toMatchObject({ revoke_benefits: true, reason: 'service_disruption' });
    expect((await merchant.api.get(`/v1/subscriptions/${subscriptionId}`)).json).toMatchObject({ status: 'canceled' });
    const types = (
      await daemon().core.db('outbox_events').where({ organization_id: merchant.organization.id }).orderBy('id')
    ).map((row) => row.type);
    expect(types).toContain('subscription.revoked');
    // Revoking again (already ended) is no error: the refund itself is what was asked for.
    expect((await refund(merchant, { order_id: paid.id, amount: 100, revoke_benefits: true })).status).toBe(201);
  });

  it('lists refunds with filters', async () => {
    const merchant = await createMerchant(daemon());
    const one = await paidOrder(daemon(), merchant, 500);
    const two = await paidOrder(daemon(), merchant, 800, 'month');
    const r1 = (await refund(merchant, { order_id: one.order.id, amount: 100 })).json;
    daemon().clock.advance(1000);
    const r2 = (await refund(merchant, { order_id: two.order.id, amount: 200 })).json;
    const ids = async (query: string) =>
      (await merchant.api.get(`/v1/refunds/?${query}`)).json.items.map((r: { id: string }) => r.id);
    expect(await ids('')).toEqual([r2.id, r1.id]);
    expect(await ids('sorting=amount')).toEqual([r1.id, r2.id]);
    expect(await ids(`order_id=${one.order.id}`)).toEqual([r1.id]);
    expect(await ids(`subscription_id=${two.subscriptionId}`)).toEqual([r2.id]);
    expect(await ids(`customer_id=${one.customerId}`)).toEqual([r1.id]);
    expect(await ids('succeeded=true')).toHaveLength(2);
    expect(await ids('succeeded=false')).toEqual([]);
    expect((await merchant.api.get('/v1/refunds/?succeeded=perhaps')).status).toBe(422);
  });

  it('refuses other tenants’ orders, read-only members, unpaid orders and bad input', async () => {
    const a = await createMerchant(daemon());
    const b = await createMerchant(daemon());
    const { order: paid } = await paidOrder(daemon(), a, 1000);

    const foreign = await refund(b, { order_id: paid.id, amount: 100 });
    expect(foreign.status).toBe(422);
    expect(foreign.json.detail[0].loc).toEqual(['body', 'order_id']);
    expect((await b.api.get(`/v1/refunds/?order_id=${paid.id}`)).json.items).toEqual([]);

    const reader = await signedInUser(daemon(), 'Reader');
    await addMember(daemon(), a.organization.id, reader.user.id, 'member');
    const member = bearerClient(daemon(), reader.token);
    const refused = await member.post('/v1/refunds/', { order_id: paid.id, amount: 100, reason: 'other' });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toBe('NotPermitted');
    expect((await member.get('/v1/refunds/')).status).toBe(200);
    const readOnlyToken = await createMerchant(daemon(), { scopes: ['refunds:read'] });
    expect(
      (await readOnlyToken.api.post('/v1/refunds/', { order_id: paid.id, amount: 1, reason: 'other' })).status,
    ).toBe(403);

    for (const body of [
      { order_id: paid.id, amount: 0, reason: 'other' },
      { order_id: paid.id, amount: 1.5, reason: 'other' },
      { order_id: paid.id, amount: 10, reason: 'dispute_prevention' },
      { order_id: paid.id, amount: 10 },
      { amount: 10, reason: 'other' },
      { order_id: paid.id, amount: 10, reason: 'other', extra: true },
    ]) {
      const response = await a.api.post('/v1/refunds/', body);
      expect(response.status, JSON.stringify(body)).toBe(422);
    }
    expect((await refund(a, { order_id: paid.id, amount: 1001 })).status).toBe(422);

    await a.api.call('PATCH', `/v1/orders/${paid.id}`, { body: { billing_name: 'x' } });
    await daemon().core.db('orders').where({ id: paid.id }).update({ status: 'pending' });
    const unpaid = await refund(a, { order_id: paid.id, amount: 100 });
    expect(unpaid.status).toBe(422);
    expect(unpaid.json.detail[0]).toMatchObject({ loc: ['body', 'order_id'], msg: 'The order is not paid.' });
    expect(await daemon().core.db('refunds').where({ order_id: paid.id })).toHaveLength(0);
  });
});
