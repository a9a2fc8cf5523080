import { Polar } from '@polar-sh/sdk';
import { Checkout$inboundSchema } from '@polar-sh/sdk/models/components/checkout.js';
import { CheckoutPublic$inboundSchema } from '@polar-sh/sdk/models/components/checkoutpublic.js';
import { CheckoutPublicConfirmed$inboundSchema } from '@polar-sh/sdk/models/components/checkoutpublicconfirmed.js';
import { CustomerOrder$inboundSchema } from '@polar-sh/sdk/models/components/customerorder.js';
import { CustomerState$inboundSchema } from '@polar-sh/sdk/models/components/customerstate.js';
import { CustomerSubscription$inboundSchema } from '@polar-sh/sdk/models/components/customersubscription.js';
import { ListResourceCustomerBenefitGrant$inboundSchema } from '@polar-sh/sdk/models/components/listresourcecustomerbenefitgrant.js';
import { ListResourceOrder$inboundSchema } from '@polar-sh/sdk/models/components/listresourceorder.js';
import { ListResourceRefund$inboundSchema } from '@polar-sh/sdk/models/components/listresourcerefund.js';
import { ListResourceSubscription$inboundSchema } from '@polar-sh/sdk/models/components/listresourcesubscription.js';
import { Order$inboundSchema } from '@polar-sh/sdk/models/components/order.js';
import { Refund$inboundSchema } from '@polar-sh/sdk/models/components/refund.js';
import { Subscription$inboundSchema } from '@polar-sh/sdk/models/components/subscription.js';
import { AlreadyCanceledSubscription } from '@polar-sh/sdk/models/errors/alreadycanceledsubscription.js';
import { HTTPValidationError } from '@polar-sh/sdk/models/errors/httpvalidationerror.js';
import { RefundedAlready } from '@polar-sh/sdk/models/errors/refundedalready.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { describe, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalog.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';
import { buyerEmail } from '../helpers/purchases.js';
import { createMerchant } from '../helpers/v1.js';

// @polar-sh/sdk 0.47.1 drives the whole purchase: checkout, the buyer's client routes, the order and subscription
// it makes, the customer's state and portal, cancel/uncancel/revoke and a refund. Every answer passes the SDK's own
// strict response schemas, and the raw bodies are parsed with them as well.

const daemon = useTestDaemon();

describe('@polar-sh/sdk checkout → order → subscription', () => {
  it('runs the whole flow through the SDK', async () => {
    const merchant = await createMerchant(daemon());
    const { sdk } = merchant;
    const product = await createProduct(merchant, {
      name: 'Pro monthly',
      recurring_interval: 'month',
      prices: [{ amount_type: 'fixed', price_amount: 2500, price_currency: 'usd' }],
    });

    const checkout = await sdk.checkouts.create({
      products: [product.id],
      metadata: { referenceId: 'team-7' },
      successUrl: 'https://shop.example/thanks',
    });
    expect(checkout).toMatchObject({ status: 'open', totalAmount: 2500, productId: product.id });
    Checkout$inboundSchema.parse((await merchant.api.get(`/v1/checkouts/${checkout.id}`)).json);

    // The buyer's side: an SDK without credentials, as the hosted checkout page or an embed uses it.
    const buyer = new Polar({ serverURL: daemon().url });
    const seen = await buyer.checkouts.clientGet({ clientSecret: checkout.clientSecret });
    expect(seen.status).toBe('open');
    const anonymous = new TestClient(daemon().url);
    CheckoutPublic$inboundSchema.parse((await anonymous.get(`/v1/checkouts/client/${checkout.clientSecret}`)).json);
    const email = buyerEmail();
    const updated = await buyer.checkouts.clientUpdate({
      clientSecret: checkout.clientSecret,
      checkoutUpdatePublic: { customerEmail: email, customerName: 'Ada Buyer' },
    });
    expect(updated.customerEmail).toBe(email);
    const confirmed = await buyer.checkouts.clientConfirm({
      clientSecret: checkout.clientSecret,
      checkoutConfirmStripe: { customerBillingAddress: { country: 'DE' }, confirmationTokenId: 'tok_visa' },
    });
    expect(confirmed.status).toBe('confirmed');
    expect(confirmed.customerSessionToken).toMatch(/^till_cst_/);
    expect((await buyer.checkouts.clientGet({ clientSecret: checkout.clientSecret })).status).toBe('succeeded');
    CheckoutPublic$inboundSchema.parse((await anonymous.get(`/v1/checkouts/client/${checkout.clientSecret}`)).json);
    // The raw confirm answer of a second checkout, parsed with the SDK's schema.
    const second = await sdk.checkouts.create({ products: [product.id], customerEmail: buyerEmail() });
    CheckoutPublicConfirmed$inboundSchema.parse(
      (
        await anonymous.post(`/v1/checkouts/client/${second.clientSecret}/confirm`, {
          customer_billing_address: { country: 'DE' },
          confirmation_token_id: 'tok_visa',
        })
      ).json,
    );

    // The merchant sees the order and the subscription.
    const orders = await sdk.orders.list({ checkoutId: checkout.id, productBillingType: 'recurring' });
    expect(orders.result.items).toHaveLength(1);
    const order = orders.result.items[0]!;
    expect(order).toMatchObject({
      status: 'paid',
      paid: true,
      billingReason: 'subscription_create',
      totalAmount: 2500,
      productId: product.id,
    });
    ListResourceOrder$inboundSchema.parse((await merchant.api.get('/v1/orders/')).json);
    Order$inboundSchema.parse((await merchant.api.get(`/v1/orders/${order.id}`)).json);
    expect((await sdk.orders.get({ id: order.id })).invoiceNumber).toBe(order.invoiceNumber);
    const renamed = await sdk.orders.update({ id: order.id, orderUpdate: { billingName: 'Buyer GmbH' } });
    expect(renamed.billingName).toBe('Buyer GmbH');

    const subscriptionId = order.subscriptionId!;
    const subscription = await sdk.subscriptions.get({ id: subscriptionId });
    expect(subscription).toMatchObject({
      status: 'active',
      amount: 2500,
      recurringInterval: 'month',
      customerId: order.customerId,
      metadata: { referenceId: 'team-7' },
    });
    Subscription$inboundSchema.parse((await merchant.api.get(`/v1/subscriptions/${subscriptionId}`)).json);
    // better-auth's lookup: active subscriptions with a metadata reference.
    const listed = await sdk.subscriptions.list({ active: true, metadata: { referenceId: 'team-7' } });
    expect(listed.result.items.map((s) => s.id)).toEqual([subscriptionId]);
    ListResourceSubscription$inboundSchema.parse((await merchant.api.get('/v1/subscriptions/')).json);

    const state = await sdk.customers.getState({ id: order.customerId });
    expect(state.activeSubscriptions.map((s) => s.id)).toEqual([subscriptionId]);
    CustomerState$inboundSchema.parse((await merchant.api.get(`/v1/customers/${order.customerId}/state`)).json);

    // The customer portal, with a session the merchant creates.
    const session = await sdk.customerSessions.create({ customerId: order.customerId });
    const customer = new Polar({ accessToken: session.token, serverURL: daemon().url });
    const security = { customerSession: session.token };
    const portalOrders = await customer.customerPortal.orders.list(security, {});
    expect(portalOrders.result.items.map((o) => o.id)).toEqual([order.id]);
    expect((await customer.customerPortal.orders.get(security, { id: order.id })).product?.name).toBe('Pro monthly');
    const portalSubscriptions = await customer.customerPortal.subscriptions.list(security, { active: true });
    expect(portalSubscriptions.result.items.map((s) => s.id)).toEqual([subscriptionId]);
    const grants = await customer.customerPortal.benefitGrants.list(security, {});
    expect(grants.result.items).toEqual([]);
    const portal = new TestClient(daemon().url, { headers: { authorization: `Bearer ${session.token}` } });
    CustomerOrder$inboundSchema.parse((await portal.get(`/v1/customer-portal/orders/${order.id}`)).json);
    CustomerSubscription$inboundSchema.parse(
      (await portal.get(`/v1/customer-portal/subscriptions/${subscriptionId}`)).json,
    );
    ListResourceCustomerBenefitGrant$inboundSchema.parse(
      (await portal.get('/v1/customer-portal/benefit-grants/')).json,
    );
    const portalCanceled = await customer.customerPortal.subscriptions.update(security, {
      id: subscriptionId,
      customerSubscriptionUpdate: { cancelAtPeriodEnd: true, cancellationReason: 'unused' },
    });
    expect(portalCanceled.cancelAtPeriodEnd).toBe(true);
    const portalUncanceled = await customer.customerPortal.subscriptions.update(security, {
      id: subscriptionId,
      customerSubscriptionUpdate: { cancelAtPeriodEnd: false },
    });
    expect(portalUncanceled.cancelAtPeriodEnd).toBe(false);

    // Cancel, uncancel, revoke.
    const canceled = await sdk.subscriptions.update({
      id: subscriptionId,
      subscriptionUpdate: { cancelAtPeriodEnd: true, customerCancellationReason: 'too_expensive' },
    });
    expect(canceled).toMatchObject({ cancelAtPeriodEnd: true, customerCancellationReason: 'too_expensive' });
    expect(canceled.endsAt).toEqual(canceled.currentPeriodEnd);
    await expect(
      sdk.subscriptions.update({ id: subscriptionId, subscriptionUpdate: { cancelAtPeriodEnd: true } }),
    ).rejects.toBeInstanceOf(AlreadyCanceledSubscription);
    const uncanceled = await sdk.subscriptions.update({
      id: subscriptionId,
      subscriptionUpdate: { cancelAtPeriodEnd: false },
    });
    expect(uncanceled).toMatchObject({ cancelAtPeriodEnd: false, endsAt: null, canceledAt: null });
    const revoked = await sdk.subscriptions.revoke({ id: subscriptionId });
    expect(revoked.status).toBe('canceled');
    expect(revoked.endedAt).toBeInstanceOf(Date);
    await expect(sdk.subscriptions.revoke({ id: subscriptionId })).rejects.toBeInstanceOf(AlreadyCanceledSubscription);
    expect((await sdk.customers.getState({ id: order.customerId })).activeSubscriptions).toEqual([]);
    await expect(sdk.subscriptions.get({ id: '00000000-0000-4000-8000-000000000000' })).rejects.toBeInstanceOf(
      ResourceNotFound,
    );

    // Refunds.
    const partial = await sdk.refunds.create({
      orderId: order.id,
      reason: 'customer_request',
      amount: 1000,
      comment: 'Half-month',
    });
    expect(partial).toMatchObject({
      status: 'succeeded',
      amount: 1000,
      taxAmount: 0,
      orderId: order.id,
      subscriptionId,
      revokeBenefits: false,
    });
    Refund$inboundSchema.parse((await merchant.api.get(`/v1/refunds/?order_id=${order.id}`)).json.items[0]);
    await expect(sdk.refunds.create({ orderId: order.id, reason: 'other', amount: 1501 })).rejects.toBeInstanceOf(
      HTTPValidationError,
    );
    await sdk.refunds.create({ orderId: order.id, reason: 'other', amount: 1500 });
    await expect(sdk.refunds.create({ orderId: order.id, reason: 'other', amount: 1 })).rejects.toBeInstanceOf(
      RefundedAlready,
    );
    const refunds = await sdk.refunds.list({ orderId: order.id, succeeded: true });
    expect(refunds.result.items.map((r) => r.amount).sort()).toEqual([1000, 1500]);
    ListResourceRefund$inboundSchema.parse((await merchant.api.get('/v1/refunds/')).json);
    expect(await sdk.orders.get({ id: order.id })).toMatchObject({ status: 'refunded', refundedAmount: 2500 });

    // Every event this flow recorded carries what the SDK's webhook payloads require.
    const schemas: Record<string, { parse(value: unknown): unknown }> = {
      order: Order$inboundSchema,
      subscription: Subscription$inboundSchema,
      refund: Refund$inboundSchema,
    };
    const rows = await daemon()
      .core.db('outbox_events')
      .where({ organization_id: merchant.organization.id })
      .orderBy('id');
    const recorded = new Set<string>();
    for (const row of rows) {
      const type = String(row.type);
      const payload = typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload;
      if (type === 'customer.state_changed') CustomerState$inboundSchema.parse(payload);
      else if (schemas[type.split('.')[0]!]) schemas[type.split('.')[0]!]!.parse(payload);
      else continue;
      recorded.add(type);
    }
    expect([...recorded].sort()).toEqual(
      [
        'customer.state_changed',
        'order.created',
        'order.paid',
        'order.refunded',
        'order.updated',
        'refund.created',
        'refund.updated',
        'subscription.active',
        'subscription.canceled',
        'subscription.created',
        'subscription.revoked',
        'subscription.uncanceled',
        'subscription.updated',
      ].sort(),
    );
  });

  it('makes a checkout for an existing customer that carries their details and confirms with a card alone', async () => {
    const merchant = await createMerchant(daemon());
    const { sdk } = merchant;
    const product = await createProduct(merchant);
    const email = buyerEmail();
    const customer = await sdk.customers.create({
      email,
      name: 'Grace Hopper',
      externalId: 'app-user-7',
      billingAddress: { line1: '9 Quai Voltaire', city: 'Paris', postalCode: '75007', country: 'FR' },
    });
    const buyer = new Polar({ serverURL: daemon().url });
    for (const link of [{ customerId: customer.id }, { externalCustomerId: 'app-user-7' }]) {
      const checkout = await sdk.checkouts.create({ products: [product.id], ...link });
      expect(checkout).toMatchObject({
        customerId: customer.id,
        customerEmail: email,
        customerName: 'Grace Hopper',
        customerBillingAddress: { line1: '9 Quai Voltaire', city: 'Paris', postalCode: '75007', country: 'FR' },
      });
      Checkout$inboundSchema.parse((await merchant.api.get(`/v1/checkouts/${checkout.id}`)).json);
      const seen = await buyer.checkouts.clientGet({ clientSecret: checkout.clientSecret });
      expect(seen).toMatchObject({ customerEmail: email, customerName: 'Grace Hopper' });
      const confirmed = await buyer.checkouts.clientConfirm({
        clientSecret: checkout.clientSecret,
        checkoutConfirmStripe: { confirmationTokenId: 'tok_visa' },
      });
      expect(confirmed).toMatchObject({ status: 'confirmed', customerId: customer.id, customerEmail: email });
    }
    const orders = await sdk.orders.list({ customerId: customer.id });
    expect(orders.result.items).toHaveLength(2);
    expect((await sdk.customers.list({ email })).result.items.map((c) => c.id)).toEqual([customer.id]);
  });
});
