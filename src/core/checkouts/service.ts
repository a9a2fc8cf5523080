import { randomUUID } from 'node:crypto';
import type { Clock } from '../kernel/clock.js';
import { DAY } from '../kernel/clock.js';
import { fieldError, resourceNotFound } from '../polar-api/errors.js';
import type { Db } from '../database/index.js';
import { transaction, together } from '../database/index.js';
import { DomainError } from '../kernel/errors.js';
import { randomAlphanumeric } from '../kernel/ids.js';
import { deferEvents, recordEvents, unrecordEvents, type OutboxEvent } from '../kernel/outbox.js';
import type { ListOptions, Page } from '../kernel/pagination.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { authorize, organizationFilter, readableOrganizationIds } from '../polar-api/actor.js';
import { findProduct } from '../products/read.js';
import type { CheckoutChanges } from './apply.js';
import { applyCheckoutChanges } from './apply.js';
import { existingCustomerFor, prefillFromCustomer } from './existing-customer.js';
import type { Checkout } from './repository.js';
import { checkoutsRepository } from './repository.js';
import type { ResolvedCheckoutLink } from '../checkout-links/resolve.js';
import type { ProductPrice } from '../products/prices.js';
import type { CheckoutCreateInput, CheckoutPublicWire, CheckoutUpdatePublicInput, CheckoutWire } from './schemas.js';
import { checkoutUpdatePublicSchema } from './schemas.js';
import type { CheckoutUrls } from './loaders.js';
import { loadCheckoutPublicWire, loadCheckoutWire, loadCheckoutWires } from './loaders.js';
import { deferSchedule } from '../scheduler/schedule.js';
import { checkoutExpiryJob, expireCheckout } from './expiry.js';

/** Polar's checkout lifetime. */
export const CHECKOUT_TTL_MS = DAY;
/** Till's prefix for checkout client secrets (Polar's is `polar_c_`). */
export const CHECKOUT_SECRET_PREFIX = 'till_c_';

export interface CheckoutDeps {
  db: Db;
  clock: Clock;
  urls: CheckoutUrls;
}

export function notOpen(): DomainError {
  return new DomainError(403, 'NotOpenCheckout', 'Checkout is not open.');
}

export function expired(): DomainError {
  return new DomainError(410, 'ExpiredCheckoutError', 'Checkout session has expired.');
}

/**
 * Writes a checkout change and its `checkout.updated` event together, only if nobody moved it out of `status`.
 * With `previous` only the changed columns are written (see checkoutsRepository.saveChanges for when that is safe).
 */
export async function saveCheckout(
  trx: Db,
  checkout: Checkout,
  expectedStatus: Checkout['status'],
  urls: CheckoutUrls,
  at: Date,
  options: { previous?: Checkout } = {},
): Promise<boolean> {
  const repo = checkoutsRepository(trx);
  const { previous } = options;
  const event = await checkoutUpdatedEvent(trx, checkout, urls, at);
  // The change and its event go together; the event is taken back in the rare case the change did not apply.
  const [saved, eventIds] = await together(
    previous ? repo.saveChanges(previous, checkout, expectedStatus) : repo.save(checkout, expectedStatus),
    recordEvents(trx, [event]),
  );
  if (!saved) await unrecordEvents(trx, eventIds);
  return saved;
}

export async function checkoutUpdatedEvent(
  db: Db,
  checkout: Checkout,
  urls: CheckoutUrls,
  at: Date,
): Promise<OutboxEvent> {
  return {
    organizationId: checkout.organizationId,
    type: 'checkout.updated',
    data: await loadCheckoutWire(db, checkout, urls),
    at,
  };
}

export function createCheckoutService(deps: CheckoutDeps) {
  const { db, clock, urls } = deps;
  const repo = checkoutsRepository(db);

  async function owned(actor: MerchantActor, id: string, mode: 'read' | 'write'): Promise<Checkout> {
    const checkout = await repo.findById(id);
    if (!checkout) throw resourceNotFound();
    authorize(actor, checkout.organizationId, mode);
    return checkout;
  }

  /**
   * An open checkout past its expiry becomes `expired` when anyone looks at it, should that come before its scheduled
   * expiry job (which then finds nothing to do).
   */
  async function settleExpiry(checkout: Checkout): Promise<Checkout> {
    const now = clock.now();
    if (checkout.status !== 'open' || checkout.expiresAt > now) return checkout;
    await transaction(db, (trx) => expireCheckout(trx, checkout, urls, now));
    return (await repo.findById(checkout.id)) ?? { ...checkout, status: 'expired', modifiedAt: now };
  }

  async function byClientSecret(clientSecret: string): Promise<Checkout> {
    const checkout = await repo.findByClientSecret(clientSecret);
    if (!checkout) throw resourceNotFound('Checkout session not found');
    return settleExpiry(checkout);
  }

  return {
    settleExpiry,
    byClientSecret,

    async create(actor: MerchantActor, input: CheckoutCreateInput): Promise<CheckoutWire> {
      const productIds = input.products ?? (input.product_id ? [input.product_id] : []);
      if (input.product_price_id && productIds.length === 0) {
        const product = await db('product_prices').where({ id: input.product_price_id }).first();
        if (product) productIds.push(String(product.product_id));
      }
      if (productIds.length === 0) throw fieldError(['body', 'products'], 'Field required', 'missing');
      const products = [];
      for (const [index, id] of productIds.entries()) {
        const product = await findProduct(db, id, urls.readCache);
        // Another organization's product reads as missing, so ids never reveal what exists elsewhere.
        if (
          !product ||
          product.isArchived ||
          product.prices.length === 0 ||
          !readableOrganizationIds(actor).includes(product.organizationId)
        ) {
          throw fieldError(['body', 'products', index], 'Product does not exist or is archived.');
        }
        products.push(product);
      }
      const organizationId = products[0]!.organizationId;
      authorize(actor, organizationId, 'write');
      if (products.some((product) => product.organizationId !== organizationId))
        throw fieldError(['body', 'products'], 'Products must belong to the same organization.');

      const customer = await existingCustomerFor(db, input, organizationId);
      const first = products[0]!;
      const firstPrice = input.product_price_id
        ? first.prices.find((price) => price.id === input.product_price_id)
        : first.prices[0];
      if (!firstPrice)
        throw fieldError(['body', 'product_price_id'], 'Price does not belong to the product or is archived.');
      const now = clock.now();
      const blank = draftCheckout({
        organizationId,
        productIds,
        productId: first.id,
        price: firstPrice,
        customerId: null,
        externalCustomerId: input.external_customer_id ?? null,
        now,
      });
      const {
        products: _p,
        prices: _pr,
        payment_processor: _processor,
        customer_id: _c,
        external_customer_id: _e,
        subscription_id: _s,
        seats: _seats,
        min_seats: _min,
        max_seats: _max,
        ...given
      } = input;
      const { draft, changes } = prefillFromCustomer(blank, customer, given);
      // The product is rendered for the checkout and its event: build it once for this request.
      const requestUrls = { ...urls, memo: new Map() };
      const checkout = { ...(await applyCheckoutChanges(db, draft, changes, now, requestUrls)), modifiedAt: null };
      return insertNew(checkout, now, requestUrls);
    },

    /**
     * Opening a checkout link (public): a checkout for the link's products still on sale, with its discount if that
     * still applies (ignored otherwise, as Polar does), its URLs, flags and metadata. The buyer's prefill (query
     * parameters) is best effort: a value that does not validate is dropped rather than failing the redirect.
     */
    async createFromLink(resolved: ResolvedCheckoutLink, prefill: CheckoutLinkPrefill = {}): Promise<CheckoutWire> {
      const { link, products } = resolved;
      const withPrices = [];
      for (const product of products) {
        const found = await findProduct(db, product.id, urls.readCache);
        if (found && !found.isArchived && found.prices.length > 0) withPrices.push(found);
      }
      if (withPrices.length === 0) throw resourceNotFound();
      const first = withPrices[0]!;
      const now = clock.now();
      const draft: Checkout = {
        ...draftCheckout({
          organizationId: link.organizationId,
          productIds: withPrices.map((p) => p.id),
          productId: first.id,
          price: first.prices[0]!,
          customerId: null,
          externalCustomerId: null,
          now,
        }),
        // Set directly rather than as a change: a discount that no longer applies is then dropped, not refused.
        discountId:
          resolved.discount && resolved.discount.organizationId === link.organizationId ? resolved.discount.id : null,
        checkoutLinkId: link.id,
      };
      const base: CheckoutChanges = {
        success_url: link.successUrl,
        return_url: link.returnUrl,
        allow_discount_codes: link.allowDiscountCodes,
        require_billing_address: link.requireBillingAddress,
        metadata: link.metadata,
        trial_interval: link.trialInterval,
        trial_interval_count: link.trialIntervalCount,
      };
      let checkout = await applyCheckoutChanges(db, draft, base, now, urls);
      for (const extra of prefillChanges(prefill)) {
        try {
          checkout = await applyCheckoutChanges(db, checkout, extra, now, urls);
        } catch (error) {
          if (!(error instanceof DomainError) || error.status !== 422) throw error;
        }
      }
      return insertNew({ ...checkout, modifiedAt: null }, now);
    },

    async get(actor: MerchantActor, id: string): Promise<CheckoutWire> {
      return loadCheckoutWire(db, await settleExpiry(await owned(actor, id, 'read')), urls);
    },

    async list(
      actor: MerchantActor,
      query: ListOptions & {
        organization_id?: string[];
        product_id?: string[];
        customer_id?: string[];
        status?: string[];
        query?: string;
      },
    ): Promise<Page<CheckoutWire>> {
      const page = await repo.list(
        {
          organizationIds: organizationFilter(actor, query.organization_id),
          productIds: query.product_id,
          customerIds: query.customer_id,
          statuses: query.status,
          query: query.query,
        },
        query,
      );
      return { items: await loadCheckoutWires(db, page.items, urls), pagination: page.pagination };
    },

    async update(actor: MerchantActor, id: string, changes: CheckoutChanges): Promise<CheckoutWire> {
      const checkout = await settleExpiry(await owned(actor, id, 'write'));
      return updateOpen(checkout, changes, (next) => loadCheckoutWire(db, next, urls));
    },

    async clientGet(clientSecret: string): Promise<CheckoutPublicWire> {
      return loadCheckoutPublicWire(db, await byClientSecret(clientSecret), urls);
    },

    async clientUpdate(clientSecret: string, changes: CheckoutUpdatePublicInput): Promise<CheckoutPublicWire> {
      const checkout = await byClientSecret(clientSecret);
      const { payment_method_type: _m, seats: _s, ...rest } = changes;
      return updateOpen(checkout, rest, (next) => loadCheckoutPublicWire(db, next, urls));
    },
  };

  async function insertNew(checkout: Checkout, now: Date, requestUrls: CheckoutUrls = urls): Promise<CheckoutWire> {
    // Rendered before the transaction: on SQLite the one connection is held from its start, and nothing here needs it.
    const wire = await loadCheckoutWire(db, checkout, requestUrls);
    // On SQLite one call, BEGIN and COMMIT included, and shared with other requests' that wait for the connection.
    await transaction(
      db,
      (on) => [
        checkoutsRepository(on).deferInsert(checkout),
        deferSchedule(on, checkoutExpiryJob(checkout), now),
        ...deferEvents(on, [{ organizationId: checkout.organizationId, type: 'checkout.created', data: wire, at: now }])
          .writes,
      ],
      { writeOnly: true },
    );
    return wire;
  }

  async function updateOpen<T>(
    checkout: Checkout,
    changes: CheckoutChanges,
    render: (next: Checkout) => Promise<T>,
  ): Promise<T> {
    if (checkout.status === 'expired') throw expired();
    if (checkout.status !== 'open') throw notOpen();
    const now = clock.now();
    const requestUrls = { ...urls, memo: new Map() };
    const next = await applyCheckoutChanges(db, checkout, changes, now, requestUrls);
    const saved = await transaction(db, (trx) => saveCheckout(trx, next, 'open', requestUrls, now));
    if (!saved) throw notOpen();
    return render(next);
  }
}

export type CheckoutService = ReturnType<typeof createCheckoutService>;

/** What a checkout link's query string may prefill (Polar's `customer_email`, `customer_name`, `discount_code`). */
export interface CheckoutLinkPrefill {
  customer_email?: string;
  customer_name?: string;
  discount_code?: string;
}

/** Each prefill value as its own change, validated as the buyer's update would be, so one bad value drops alone. */
function prefillChanges(prefill: CheckoutLinkPrefill): CheckoutChanges[] {
  const changes: CheckoutChanges[] = [];
  for (const field of ['customer_email', 'customer_name'] as const) {
    const value = prefill[field];
    if (!value) continue;
    const parsed = checkoutUpdatePublicSchema.shape[field].safeParse(value);
    if (parsed.success && parsed.data) changes.push({ [field]: parsed.data });
  }
  if (prefill.discount_code) changes.push({ discount_code: prefill.discount_code.slice(0, 256) });
  return changes;
}

interface DraftParams {
  organizationId: string;
  productIds: string[];
  productId: string;
  price: ProductPrice;
  customerId: string | null;
  externalCustomerId: string | null;
  now: Date;
}

/** A new open checkout before any changes are applied: amounts are computed by applyCheckoutChanges. */
function draftCheckout(params: DraftParams): Checkout {
  const { now } = params;
  return {
    id: randomUUID(),
    organizationId: params.organizationId,
    clientSecret: `${CHECKOUT_SECRET_PREFIX}${randomAlphanumeric(43)}`,
    status: 'open',
    paymentProcessor: 'sandbox',
    successUrl: null,
    returnUrl: null,
    embedOrigin: null,
    expiresAt: new Date(now.getTime() + CHECKOUT_TTL_MS),
    productId: params.productId,
    productPriceId: params.price.id,
    productIds: params.productIds,
    discountId: null,
    allowDiscountCodes: true,
    requireBillingAddress: false,
    customAmount: null,
    trialInterval: null,
    trialIntervalCount: null,
    allowTrial: null,
    currency: params.price.priceCurrency,
    subtotalAmount: 0,
    discountAmount: 0,
    netAmount: 0,
    taxAmount: 0,
    totalAmount: 0,
    customerId: params.customerId,
    externalCustomerId: params.externalCustomerId,
    customerName: null,
    customerEmail: null,
    customerIpAddress: null,
    customerBillingName: null,
    customerBillingAddress: null,
    customerTaxId: null,
    isBusinessCustomer: false,
    metadata: {},
    customerMetadata: {},
    customFieldData: {},
    checkoutLinkId: null,
    orderId: null,
    subscriptionId: null,
    failureReason: null,
    chargeAttempts: 0,
    inFlightAt: null,
    createdAt: now,
    modifiedAt: null,
  };
}
