import { iso, isoOrNull } from '../polar-api/schemas.js';
import type { PaymentMethod } from './repository.js';
import type { CustomerPaymentMethodWire, PaymentMethodWire } from './schemas.js';

export function customerPaymentMethodWire(method: PaymentMethod): CustomerPaymentMethodWire {
  return {
    id: method.id,
    created_at: iso(method.createdAt),
    modified_at: isoOrNull(method.modifiedAt),
    processor: 'stripe',
    customer_id: method.customerId,
    type: 'card',
    method_metadata: {
      brand: method.brand,
      last4: method.last4,
      exp_month: method.expMonth,
      exp_year: method.expYear,
      wallet: null,
    },
  };
}

export function paymentMethodWire(method: PaymentMethod): PaymentMethodWire {
  return { ...customerPaymentMethodWire(method), is_default: method.isDefault };
}
