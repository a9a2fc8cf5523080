import { iso, isoOrNull } from '../polar-api/schemas.js';
import type { ProductWire } from '../products/schemas.js';
import { productOwnFields } from '../products/wire.js';
import type { CustomerWire } from '../customers/schemas.js';
import type { DiscountBaseWire } from '../discounts/schemas.js';
import type { OrderSubscriptionWire } from '../subscriptions/schemas.js';
import type { Order, OrderItem } from './repository.js';
import type { OrderWire } from './schemas.js';

function orderProduct(product: ProductWire): OrderWire['product'] {
  // Polar's OrderProduct has no meter interval; the rest keeps DiscountProduct's order.
  const { meter_interval, meter_interval_count, ...fields } = productOwnFields(product);
  return fields;
}

/** What an order embeds, when the caller already has it (a fulfilment that just wrote the rows). */
export interface OrderEmbeds {
  customer: CustomerWire;
  product: ProductWire | null;
  discount: DiscountBaseWire | null;
  subscription: OrderSubscriptionWire | null;
  items: readonly OrderItem[];
}

export function orderWire(order: Order, embeds: OrderEmbeds): OrderWire {
  const { product, items } = embeds;
  const paid = order.status !== 'pending';
  return {
    id: order.id,
    created_at: iso(order.createdAt),
    modified_at: isoOrNull(order.modifiedAt),
    status: order.status,
    paid,
    subtotal_amount: order.subtotalAmount,
    discount_amount: order.discountAmount,
    net_amount: order.netAmount,
    tax_amount: order.taxAmount,
    total_amount: order.totalAmount,
    applied_balance_amount: 0,
    due_amount: paid ? 0 : order.totalAmount,
    refunded_amount: order.refundedAmount,
    refunded_tax_amount: order.refundedTaxAmount,
    currency: order.currency,
    billing_reason: order.billingReason,
    billing_name: order.billingName,
    billing_address: order.billingAddress,
    invoice_number: order.invoiceNumber,
    is_invoice_generated: order.invoiceGeneratedAt !== null,
    seats: null,
    customer_id: order.customerId,
    product_id: order.productId,
    discount_id: order.discountId,
    subscription_id: order.subscriptionId,
    checkout_id: order.checkoutId,
    metadata: order.metadata,
    custom_field_data: order.customFieldData,
    platform_fee_amount: 0,
    platform_fee_currency: null,
    customer: embeds.customer,
    // Polar's deprecated alias of the customer id.
    user_id: order.customerId,
    product: product ? orderProduct(product) : null,
    discount: embeds.discount,
    subscription: embeds.subscription,
    items: items.map((item) => ({
      created_at: iso(item.createdAt),
      modified_at: null,
      id: item.id,
      label: item.label,
      amount: item.amount,
      tax_amount: item.taxAmount,
      proration: item.proration,
      product_price_id: item.productPriceId,
    })),
    description: product?.name ?? items[0]?.label ?? 'Order',
  };
}
