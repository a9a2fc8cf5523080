import { Polar } from '@polar-sh/sdk';
import { CustomerPaymentMethod$inboundSchema } from '@polar-sh/sdk/models/components/customerpaymentmethod.js';
import { ListResourceCustomerPaymentMethod$inboundSchema } from '@polar-sh/sdk/models/components/listresourcecustomerpaymentmethod.js';
import { PaymentMethodCard$inboundSchema } from '@polar-sh/sdk/models/components/paymentmethodcard.js';
import { PaymentMethodInUseByActiveSubscription } from '@polar-sh/sdk/models/errors/paymentmethodinusebyactivesubscription.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { SDKError } from '@polar-sh/sdk/models/errors/sdkerror.js';
import { describe, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalog.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { purchase } from '../helpers/purchases.js';
import { createMerchant } from '../helpers/v1.js';

const daemon = useTestDaemon();

describe('@polar-sh/sdk 0.47 and saved payment methods', () => {
  it('lists, adds and deletes a customer’s cards in the portal, and parses the merchant’s list', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant, { recurring_interval: 'month' });
    const bought = await purchase(daemon(), merchant, product.id);
    const session = await merchant.sdk.customerSessions.create({ customerId: bought.customerId });
    const customer = new Polar({ accessToken: session.token, serverURL: daemon().url });
    const security = { customerSession: session.token };

    const listed = await customer.customerPortal.customers.listPaymentMethods(security, {});
    expect(listed.result.items).toHaveLength(1);
    const saved = listed.result.items[0]!;
    expect(saved).toMatchObject({
      customerId: bought.customerId,
      type: 'card',
      processor: 'stripe',
      methodMetadata: { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2034 },
    });

    daemon().clock.advance(1000);
    const added = await customer.customerPortal.customers.addPaymentMethod(security, {
      confirmationTokenId: 'tok_mastercard',
      setDefault: true,
      returnUrl: 'https://shop.example/account',
    });
    expect(added.status).toBe('succeeded');
    if (added.status !== 'succeeded') throw new Error('unreachable');
    expect(added.paymentMethod).toMatchObject({ type: 'card', methodMetadata: { brand: 'mastercard', last4: '4444' } });
    const me = await customer.customerPortal.customers.get(security);
    expect(me.defaultPaymentMethodId).toBe(added.paymentMethod.id);

    // The merchant's list (2026-04; SDK 0.47 has no function for it): each item parses as a card, the list as a list.
    const merchantList = await merchant.api.get(`/v1/customers/${bought.customerId}/payment-methods`);
    expect(merchantList.status).toBe(200);
    ListResourceCustomerPaymentMethod$inboundSchema.parse(merchantList.json);
    for (const item of merchantList.json.items) {
      PaymentMethodCard$inboundSchema.parse(item);
      CustomerPaymentMethod$inboundSchema.parse(item);
    }

    await customer.customerPortal.customers.deletePaymentMethod(security, { id: saved.id });
    const after = await customer.customerPortal.customers.listPaymentMethods(security, {});
    expect(after.result.items.map((item) => item.id)).toEqual([added.paymentMethod.id]);
  });

  it('turns the refusals into the SDK’s errors', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant, { recurring_interval: 'month' });
    const bought = await purchase(daemon(), merchant, product.id);
    const session = await merchant.sdk.customerSessions.create({ customerId: bought.customerId });
    const customer = new Polar({ accessToken: session.token, serverURL: daemon().url });
    const security = { customerSession: session.token };
    const only = (await customer.customerPortal.customers.listPaymentMethods(security, {})).result.items[0]!;

    await expect(
      customer.customerPortal.customers.deletePaymentMethod(security, { id: only.id }),
    ).rejects.toBeInstanceOf(PaymentMethodInUseByActiveSubscription);
    await expect(
      customer.customerPortal.customers.deletePaymentMethod(security, { id: '00000000-0000-4000-8000-000000000000' }),
    ).rejects.toBeInstanceOf(ResourceNotFound);
    // PaymentMethodSetupFailed has no class in SDK 0.47: a 400 with Polar's body.
    const declined = await customer.customerPortal.customers
      .addPaymentMethod(security, {
        confirmationTokenId: 'tok_chargeDeclined',
        setDefault: false,
        returnUrl: 'https://shop.example/account',
      })
      .catch((error: unknown) => error);
    expect(declined).toBeInstanceOf(SDKError);
    expect((declined as SDKError).statusCode).toBe(400);
    expect(JSON.parse((declined as SDKError).body)).toMatchObject({ error: 'PaymentMethodSetupFailed' });
  });
});
