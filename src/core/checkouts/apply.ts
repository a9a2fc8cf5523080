import { fieldError, validationError } from '../polar-api/errors.js';
import type { Db } from '../database/index.js';
import type { Discount } from '../discounts/repository.js';
import { discountsRepository } from '../discounts/repository.js';
import { validateTaxId } from '../customers/address.js';
import type { EmbedOptions } from '../products/embedded.js';
import { findProduct, productWires } from '../products/read.js';
import { taxBasisPointsFor } from '../tax/service.js';
import { customFieldDataIssues } from './custom-field-data.js';
import { checkCustomAmount, checkoutTotals, discountApplies, priceAmount } from './pricing.js';
import type { Checkout } from './repository.js';
import type { CheckoutUpdatePublicInput, CheckoutUpdateInput } from './schemas.js';

/** Changes from any of the three callers: the merchant's update, the buyer's update, the buyer's confirm. */
export type CheckoutChanges = Partial<CheckoutUpdateInput> & Partial<Pick<CheckoutUpdatePublicInput, 'discount_code'>>;

/**
 * Applies changes to a checkout and recomputes everything derived from them (product and price, discount, amounts,
 * tax), so a checkout's amounts are never stale. Throws 422s located at the field that caused them.
 */
export async function applyCheckoutChanges(
  db: Db,
  checkout: Checkout,
  changes: CheckoutChanges,
  at: Date,
  options: EmbedOptions,
): Promise<Checkout> {
  return (await applyCheckoutChangesWithProduct(db, checkout, changes, at, options)).checkout;
}

/** The same, also handing back the product, price and product wire it loaded, so callers need not load them again. */
export async function applyCheckoutChangesWithProduct(
  db: Db,
  checkout: Checkout,
  changes: CheckoutChanges,
  at: Date,
  options: EmbedOptions,
) {
  const next: Checkout = { ...checkout };
  const set = <K extends keyof Checkout>(key: K, value: Checkout[K] | undefined) => {
    if (value !== undefined) next[key] = value;
  };
  set('customerName', changes.customer_name);
  set('customerEmail', changes.customer_email?.toLowerCase() ?? (changes.customer_email === null ? null : undefined));
  set('customerBillingName', changes.customer_billing_name);
  set('customerBillingAddress', changes.customer_billing_address);
  set('customerIpAddress', changes.customer_ip_address);
  set('successUrl', changes.success_url);
  set('returnUrl', changes.return_url);
  set(
    'embedOrigin',
    changes.embed_origin === undefined || changes.embed_origin === null
      ? changes.embed_origin
      : new URL(changes.embed_origin).origin,
  );
  set('allowDiscountCodes', changes.allow_discount_codes);
  set('trialInterval', changes.trial_interval);
  set('trialIntervalCount', changes.trial_interval_count);
  set('allowTrial', changes.allow_trial);
  set('requireBillingAddress', changes.require_billing_address);
  if (changes.is_business_customer !== undefined && changes.is_business_customer !== null)
    next.isBusinessCustomer = changes.is_business_customer;
  if (changes.metadata) next.metadata = changes.metadata;
  if (changes.customer_metadata) next.customerMetadata = changes.customer_metadata;
  if (changes.custom_field_data) next.customFieldData = { ...next.customFieldData, ...changes.custom_field_data };

  // Product and price: the price must belong to one of the checkout's products, and be live.
  let chosen: Awaited<ReturnType<typeof findProduct>> = null;
  if (changes.product_price_id || changes.product_id) {
    const productId = changes.product_id ?? next.productId;
    if (!next.productIds.includes(productId))
      throw fieldError(['body', 'product_id'], 'Product is not available in this checkout.');
    const product = await findProduct(db, productId, options.readCache);
    chosen = product;
    if (!product || product.isArchived)
      throw fieldError(['body', 'product_id'], 'Product is not available in this checkout.');
    const price = changes.product_price_id
      ? product.prices.find((p) => p.id === changes.product_price_id)
      : product.prices[0];
    if (!price) throw fieldError(['body', 'product_price_id'], 'Price does not belong to the product or is archived.');
    next.productId = product.id;
    next.productPriceId = price.id;
    next.currency = price.priceCurrency;
    next.customAmount = null;
  }
  const product = chosen?.id === next.productId ? chosen : await findProduct(db, next.productId, options.readCache);
  const price = product?.prices.find((p) => p.id === next.productPriceId);
  if (!product || !price)
    throw fieldError(['body', 'product_price_id'], 'The checkout’s price is no longer available.');
  if (changes.amount !== undefined) {
    checkCustomAmount(price, changes.amount, ['body', 'amount']);
    next.customAmount = price.amountType === 'custom' ? changes.amount : null;
  }

  // Discount: by id (merchant) or by code (buyer, when codes are allowed); null removes it.
  let discount: Discount | null = next.discountId ? await discountsRepository(db).findById(next.discountId) : null;
  if (changes.discount_id !== undefined) {
    discount = changes.discount_id ? await discountsRepository(db).findById(changes.discount_id) : null;
    if (changes.discount_id && (!discount || discount.organizationId !== next.organizationId))
      throw fieldError(['body', 'discount_id'], 'Discount does not exist.');
  }
  if (changes.discount_code !== undefined) {
    if (changes.discount_code && !next.allowDiscountCodes)
      throw fieldError(['body', 'discount_code'], 'Discount codes are not allowed on this checkout.');
    discount = changes.discount_code
      ? await discountsRepository(db).findByCode(next.organizationId, changes.discount_code)
      : null;
    if (changes.discount_code && (!discount || !discountApplies(discount, product.id, price, at)))
      throw fieldError(['body', 'discount_code'], 'Discount code is invalid or does not apply to this product.');
  }
  if (discount && !discountApplies(discount, product.id, price, at)) {
    // A discount set earlier that no longer applies (ended, used up, other product) is dropped, as Polar does.
    if (changes.discount_id) throw fieldError(['body', 'discount_id'], 'Discount does not apply to this product.');
    discount = null;
  }
  const amount = priceAmount(price, next.customAmount);
  next.discountId = discount && (price.amountType === 'fixed' || price.amountType === 'custom') ? discount.id : null;

  if (changes.customer_tax_id !== undefined) {
    const country = next.customerBillingAddress?.country;
    if (changes.customer_tax_id && !country)
      throw fieldError(['body', 'customer_tax_id'], 'A billing address with a country is needed to validate a tax ID.');
    if (changes.customer_tax_id && country && !validateTaxId(changes.customer_tax_id, country))
      throw fieldError(['body', 'customer_tax_id'], 'Invalid tax ID for the billing country.');
    next.customerTaxId = changes.customer_tax_id;
  }

  const [productWire] = await productWires(db, [product], options);
  const issues = customFieldDataIssues(next.customFieldData, productWire?.attached_custom_fields ?? [], {
    requireAll: false,
  });
  if (issues.length > 0) throw validationError(issues);

  const taxBasisPoints = await taxBasisPointsFor(db, next.organizationId, next.customerBillingAddress);
  const totals = checkoutTotals(amount, next.discountId ? discount : null, next.currency, taxBasisPoints);
  next.subtotalAmount = totals.subtotal_amount;
  next.discountAmount = totals.discount_amount;
  next.netAmount = totals.net_amount;
  next.taxAmount = totals.tax_amount;
  next.totalAmount = totals.total_amount;
  next.modifiedAt = at;
  return { checkout: next, product, price, productWire: productWire! };
}
