import { describe, expect, it } from 'vitest';
import type { PaymentProcessor } from '../../src/core/payments/processor.js';
import { createSandboxProcessor } from '../../src/core/payments/sandbox.js';
import { createCheckout, createDiscount, createProduct } from '../helpers/catalog.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';
import { paidOrder } from '../helpers/purchases.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';

/**
 * The reconciler against requests that outlive its lease, in one process with a clock the test moves: a processor
 * call is held at a gate (the request is "stuck" there, as if its daemon had died), the reconciler takes over once the
 * lease has run out, and then the gate opens and the late request finds the row settled. The daemon-killing tests are
 * in crash-recovery.test.ts.
 */

/** Holds a processor call until opened; `reached` resolves when the call arrives. */
class Gate {
  reached: Promise<void>;
  open!: () => void;
  private arrive!: () => void;
  private opened: Promise<void>;
  constructor() {
    this.reached = new Promise((resolve) => (this.arrive = resolve));
    this.opened = new Promise((resolve) => (this.open = resolve));
  }
  async pass(): Promise<void> {
    this.arrive();
    await this.opened;
  }
}

const sandbox = createSandboxProcessor();
/** The next charge or refund waits at the gate, before or after the sandbox acts; each is taken once. */
const gates: { charge?: { when: 'before' | 'after'; gate: Gate }; refund?: { when: 'before' | 'after'; gate: Gate } } =
  {};
function take(kind: 'charge' | 'refund') {
  const held = gates[kind];
  delete gates[kind];
  return held;
}
const processor: PaymentProcessor = {
  name: sandbox.name,
  async chargeToken(token, request) {
    const held = take('charge');
    if (held?.when === 'before') await held.gate.pass();
    const result = await sandbox.chargeToken(token, request);
    if (held?.when === 'after') await held.gate.pass();
    return result;
  },
  chargeSavedMethod: (method, request) => sandbox.chargeSavedMethod(method, request),
  async refund(reference, request) {
    const held = take('refund');
    if (held?.when === 'before') await held.gate.pass();
    const result = await sandbox.refund(reference, request);
    if (held?.when === 'after') await held.gate.pass();
    return result;
  },
  findCharge: (reference) => sandbox.findCharge(reference),
  findRefund: (reference) => sandbox.findRefund(reference),
};

const LEASE_MS = 60_000;
const daemon = useTestDaemon({ reconcileLeaseMs: LEASE_MS }, { paymentProcessor: processor });

function hold(kind: 'charge' | 'refund', when: 'before' | 'after'): Gate {
  const gate = new Gate();
  gates[kind] = { when, gate };
  return gate;
}

async function reconcile(): Promise<void> {
  const errors: unknown[] = [];
  await daemon().core.reconciler.runOnce((error) => errors.push(error));
  expect(errors).toEqual([]);
}

function confirm(clientSecret: string, body: Record<string, unknown> = {}) {
  return new TestClient(daemon().url).post(`/v1/checkouts/client/${clientSecret}/confirm`, {
    customer_billing_address: { country: 'DE' },
    confirmation_token_id: 'tok_visa',
    ...body,
  });
}

async function checkoutOf(merchant: Merchant, id: string) {
  return (await merchant.api.get(`/v1/checkouts/${id}`)).json as { status: string };
}

async function ordersOf(merchant: Merchant, checkoutId: string) {
  return (await merchant.api.get(`/v1/orders/?checkout_id=${checkoutId}`)).json.items as Array<{ id: string }>;
}

async function attemptsOf(checkoutId: string) {
  return (await daemon().core.db('payment_attempts').where({ checkout_id: checkoutId }).select('kind', 'status')) as
    Array<{ kind: string; status: string }> | [];
}

describe('the reconciler and a request that outlives the lease', () => {
  it('charged but not fulfilled: the reconciler writes the one order; the late request is refused and refunds nothing', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    const checkout = await createCheckout(merchant, [product.id], { customer_email: 'late@example.com' });
    const gate = hold('charge', 'after');
    const answer = confirm(checkout.client_secret);
    await gate.reached;

    // Within the lease the request is presumed alive.
    await reconcile();
    expect((await checkoutOf(merchant, checkout.id)).status).toBe('confirmed');

    daemon().clock.advance(LEASE_MS + 1);
    await reconcile();
    expect((await checkoutOf(merchant, checkout.id)).status).toBe('succeeded');
    expect(await ordersOf(merchant, checkout.id)).toHaveLength(1);

    gate.open();
    const late = await answer;
    expect(late.status).toBe(403);
    expect(late.json.error).toBe('NotOpenCheckout');
    expect(await ordersOf(merchant, checkout.id)).toHaveLength(1);
    expect(await sandbox.findRefund(`${checkout.id}:1:void`)).toBeNull();
    expect(await attemptsOf(checkout.id)).toEqual([{ kind: 'charge', status: 'succeeded' }]);
  });

  it('not charged yet: the reconciler reopens it and gives the discount back; the late charge is refunded; a retry buys it', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    const discount = await createDiscount(merchant, { code: 'ONCEONLY', max_redemptions: 1 });
    const checkout = await createCheckout(merchant, [product.id], {
      customer_email: 'slow@example.com',
      discount_id: discount.id,
    });
    const gate = hold('charge', 'before');
    const answer = confirm(checkout.client_secret);
    await gate.reached;
    daemon().clock.advance(LEASE_MS + 1);
    await reconcile();
    expect((await checkoutOf(merchant, checkout.id)).status).toBe('open');
    expect((await merchant.api.get(`/v1/discounts/${discount.id}`)).json.redemptions_count).toBe(0);

    // The request wakes up and charges under its key: that money goes straight back, and the checkout stays open.
    gate.open();
    const late = await answer;
    expect(late.status).toBe(403);
    const charged = await sandbox.findCharge(`${checkout.id}:1`);
    expect(charged?.status).toBe('succeeded');
    expect((await sandbox.findRefund(`${checkout.id}:1:void`))?.status).toBe('succeeded');
    expect((await checkoutOf(merchant, checkout.id)).status).toBe('open');
    expect(await ordersOf(merchant, checkout.id)).toHaveLength(0);

    // The buyer's retry is a new attempt under a new key, with the discount still available.
    const retry = await confirm(checkout.client_secret);
    expect(retry.status).toBe(200);
    expect(await ordersOf(merchant, checkout.id)).toHaveLength(1);
    expect((await sandbox.findCharge(`${checkout.id}:2`))?.status).toBe('succeeded');
    expect((await merchant.api.get(`/v1/discounts/${discount.id}`)).json.redemptions_count).toBe(1);
    expect((await attemptsOf(checkout.id)).map((row) => `${row.kind} ${row.status}`).sort()).toEqual([
      'charge succeeded',
      'charge succeeded',
      'refund succeeded',
    ]);
  });

  it('a refund answered by the processor but not written: settled once, by the reconciler; the late request answers the same', async () => {
    const merchant = await createMerchant(daemon());
    const { order } = await paidOrder(daemon(), merchant, 1000);
    const gate = hold('refund', 'after');
    const answer = merchant.api.post('/v1/refunds/', { order_id: order.id, amount: 400, reason: 'customer_request' });
    await gate.reached;
    daemon().clock.advance(LEASE_MS + 1);
    await reconcile();
    const refunds = (await merchant.api.get(`/v1/refunds/?order_id=${order.id}`)).json.items as Array<{
      id: string;
      status: string;
    }>;
    expect(refunds.map((refund) => refund.status)).toEqual(['succeeded']);

    gate.open();
    const late = await answer;
    expect(late.status).toBe(201);
    expect(late.json).toMatchObject({ id: refunds[0]!.id, status: 'succeeded' });
    const after = (await merchant.api.get(`/v1/orders/${order.id}`)).json;
    // Counted once on the order.
    expect(after).toMatchObject({ refunded_amount: 400, status: 'partially_refunded' });
    const attempts = await daemon().core.db('payment_attempts').where({ refund_id: refunds[0]!.id });
    expect(attempts).toHaveLength(1);
  });

  it('a refund whose processor call never happened: the reconciler sends it under its key; the late request moves no money twice', async () => {
    const merchant = await createMerchant(daemon());
    const { order } = await paidOrder(daemon(), merchant, 1000);
    const gate = hold('refund', 'before');
    const answer = merchant.api.post('/v1/refunds/', { order_id: order.id, amount: 1000, reason: 'customer_request' });
    await gate.reached;
    // The whole order is reserved by the pending refund.
    const blocked = await merchant.api.post('/v1/refunds/', { order_id: order.id, amount: 1, reason: 'other' });
    expect(blocked.status).toBe(422);

    daemon().clock.advance(LEASE_MS + 1);
    await reconcile();
    const [refund] = (await merchant.api.get(`/v1/refunds/?order_id=${order.id}`)).json.items as Array<{
      id: string;
      status: string;
    }>;
    expect(refund!.status).toBe('succeeded');
    const processed = await sandbox.findRefund(refund!.id);
    expect(processed?.status).toBe('succeeded');

    gate.open();
    const late = await answer;
    expect(late.status).toBe(201);
    expect(late.json).toMatchObject({ id: refund!.id, status: 'succeeded' });
    // The processor answered the late call with the refund it already made under that key.
    expect(await sandbox.findRefund(refund!.id)).toEqual(processed);
    expect((await merchant.api.get(`/v1/orders/${order.id}`)).json).toMatchObject({
      refunded_amount: 1000,
      status: 'refunded',
    });
    expect(await daemon().core.db('payment_attempts').where({ refund_id: refund!.id })).toHaveLength(1);
  });
});
