import type { Customer } from '../customers/repository.js';
import { customersRepository } from '../customers/repository.js';
import type { CustomerRef } from '../customers/service.js';
import type { CustomerActor, DefaultPaymentMethods } from '../customers/sessions.js';
import type { Db } from '../database/index.js';
import { transaction } from '../database/index.js';
import type { Clock } from '../kernel/clock.js';
import { DomainError } from '../kernel/errors.js';
import type { Page } from '../kernel/pagination.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { fieldError, resourceNotFound } from '../polar-api/errors.js';
import type { PaymentMethodVault } from '../payments/methods.js';
import { subscriptionsRepository } from '../subscriptions/repository.js';
import { makeDefault, newPaymentMethod } from './billing.js';
import { paymentMethodsRepository, type PaymentMethod } from './repository.js';
import type {
  CustomerPaymentMethodCreateInput,
  CustomerPaymentMethodWire,
  PaymentMethodListQuery,
  PaymentMethodWire,
} from './schemas.js';
import { customerPaymentMethodWire, paymentMethodWire } from './wire.js';

/**
 * Called once a card has become a customer's default and the change is committed, outside any transaction. Dunning
 * hooks in here to retry the customer's past-due orders at once with the new card (Polar's
 * `schedule_retry_for_past_due_orders`); until it exists nothing is passed.
 */
export type NewDefaultMethodListener = (customer: Customer, method: PaymentMethod) => Promise<void>;

function setupFailed(message: string): DomainError {
  return new DomainError(
    400,
    'PaymentMethodSetupFailed',
    `Could not add this payment method: ${message} Please try again with a different card.`,
  );
}

function inUse(): DomainError {
  return new DomainError(
    400,
    'PaymentMethodInUseByActiveSubscription',
    'Cannot delete payment method. It is currently used by active subscription and no alternative payment methods.',
  );
}

/**
 * Saved payment methods: the merchant lists a customer's (Polar has no merchant route to add or delete one); the
 * customer lists, adds (a test card token with the sandbox), makes default and deletes their own in the portal.
 */
export function createPaymentMethodService(deps: {
  db: Db;
  clock: Clock;
  vault: PaymentMethodVault;
  resolveCustomer: (actor: MerchantActor, ref: CustomerRef) => Promise<Customer>;
  onNewDefault?: NewDefaultMethodListener;
}) {
  const { db, clock, vault, onNewDefault } = deps;

  async function page<T>(customerId: string, query: PaymentMethodListQuery, wire: (method: PaymentMethod) => T) {
    const found = await paymentMethodsRepository(db).listForCustomer(customerId, query);
    return { items: found.items.map(wire), pagination: found.pagination };
  }

  /** The customer's row, locked on PostgreSQL, so two changes to their cards do not interleave. */
  async function lockCustomer(trx: Db, customer: Customer): Promise<Customer> {
    const locked = await customersRepository(trx).lockById(customer.id);
    if (!locked) throw resourceNotFound();
    return locked;
  }

  async function ownMethod(trx: Db, customer: Customer, id: string): Promise<PaymentMethod | null> {
    const method = await paymentMethodsRepository(trx).findById(id);
    return method && method.customerId === customer.id ? method : null;
  }

  /** What the portal's PATCH customers/me uses to change the default (customers/sessions.ts). */
  const defaults: DefaultPaymentMethods = {
    idOf: (on, customerId) => paymentMethodsRepository(on).defaultIdOf(customerId),
    async set(trx, customer, id, at) {
      const method = await ownMethod(trx, customer, id);
      if (!method) throw fieldError(['body', 'default_payment_method_id'], 'Payment method not found.', 'invalid');
      const made = await makeDefault(trx, method, at);
      return () => onNewDefault?.(customer, made) ?? Promise.resolve();
    },
  };

  return {
    defaults,

    async list(
      actor: MerchantActor,
      ref: CustomerRef,
      query: PaymentMethodListQuery,
    ): Promise<Page<PaymentMethodWire>> {
      const customer = await deps.resolveCustomer(actor, ref);
      return page(customer.id, query, paymentMethodWire);
    },

    async listOwn(actor: CustomerActor, query: PaymentMethodListQuery): Promise<Page<CustomerPaymentMethodWire>> {
      return page(actor.customer.id, query, customerPaymentMethodWire);
    },

    /**
     * Keeps a new card for the customer. The processor is asked first, outside any transaction; a card it refuses is
     * Polar's 400 PaymentMethodSetupFailed and nothing is written. The customer's first card becomes the default
     * whatever `set_default` says, so a customer with cards always has one.
     */
    async add(actor: CustomerActor, input: CustomerPaymentMethodCreateInput) {
      const setup = await vault.setUp(input.confirmation_token_id);
      if (setup.status === 'failed') throw setupFailed(setup.declineMessage);
      const at = clock.now();
      const { method, customer } = await transaction(db, async (trx) => {
        const customer = await lockCustomer(trx, actor.customer);
        const defaultId = await paymentMethodsRepository(trx).defaultIdOf(customer.id);
        const method = newPaymentMethod({
          organizationId: customer.organizationId,
          customerId: customer.id,
          processor: vault.processor,
          processorReference: setup.methodReference,
          card: setup.card,
          isDefault: input.set_default || defaultId === null,
          at,
        });
        if (!method.isDefault) {
          await paymentMethodsRepository(trx).deferInsert(method);
          return { method, customer };
        }
        return { method: await makeDefault(trx, method, at, true), customer };
      });
      if (method.isDefault) await onNewDefault?.(customer, method);
      return { status: 'succeeded' as const, payment_method: customerPaymentMethodWire(method) };
    },

    /**
     * Polar's rule: subscriptions that still bill the card move to another of the customer's cards (the default
     * first); with no other card the delete is refused (400 PaymentMethodInUseByActiveSubscription). A deleted
     * default hands the flag to the card the subscriptions moved to, or else the newest.
     */
    async remove(actor: CustomerActor, id: string): Promise<void> {
      const at = clock.now();
      await transaction(db, async (trx) => {
        const customer = await lockCustomer(trx, actor.customer);
        const method = await ownMethod(trx, customer, id);
        if (!method) throw resourceNotFound();
        const methods = paymentMethodsRepository(trx);
        const subscriptions = subscriptionsRepository(trx);
        const others = (await methods.allForCustomer(customer.id)).filter((other) => other.id !== method.id);
        const successor = others.find((other) => other.isDefault) ?? others[0] ?? null;
        const billed = await subscriptions.billingIds({ payment_method_id: method.id });
        if (billed.length > 0 && !successor) throw inUse();
        if (successor) await subscriptions.moveBilling(billed, successor);
        await methods.delete(method.id);
        if (method.isDefault && successor) await methods.setDefault(successor.id, at);
      });
    },
  };
}

export type PaymentMethodService = ReturnType<typeof createPaymentMethodService>;
