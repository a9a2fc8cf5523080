import { describe, expect, it } from 'vitest';
import { createCheckout, createProduct } from '../helpers/catalog.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';
import { createMerchant } from '../helpers/v1.js';

const daemon = useTestDaemon();
const SEATS = 'Seat-based pricing is not supported.';

describe('seats, which Till does not sell', () => {
  it('are refused with a 422 naming the field, never dropped', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    for (const field of ['seats', 'min_seats', 'max_seats']) {
      const response = await merchant.api.post('/v1/checkouts/', { products: [product.id], [field]: 3 });
      expect(response.status, field).toBe(422);
      expect(response.json.detail).toEqual([{ loc: ['body', field], msg: SEATS, type: 'value_error' }]);
    }
    // No seats (null, as SDKs send) is what Till does.
    expect((await merchant.api.post('/v1/checkouts/', { products: [product.id], seats: null })).status).toBe(201);

    const checkout = await createCheckout(merchant, [product.id]);
    const updated = await merchant.api.call('PATCH', `/v1/checkouts/${checkout.id}`, { body: { seats: 2 } });
    expect(updated.status).toBe(422);
    expect(updated.json.detail[0].loc).toEqual(['body', 'seats']);
    const buyer = new TestClient(daemon().url);
    const path = `/v1/checkouts/client/${checkout.client_secret}`;
    for (const [method, suffix, body] of [
      ['PATCH', '', { seats: 2 }],
      ['POST', '/confirm', { confirmation_token_id: 'tok_visa', seats: 2 }],
    ] as const) {
      const response = await buyer.call(method, `${path}${suffix}`, { body });
      expect(response.status, `${method} ${suffix}`).toBe(422);
      expect(response.json.detail).toEqual([{ loc: ['body', 'seats'], msg: SEATS, type: 'value_error' }]);
    }
    expect((await merchant.api.get(`/v1/checkouts/${checkout.id}`)).json.status).toBe('open');

    const seatPriced = await merchant.api.post('/v1/products/', {
      name: 'Team plan',
      recurring_interval: 'month',
      prices: [{ amount_type: 'seat_based', price_currency: 'usd', seat_tiers: { tiers: [] } }],
    });
    expect(seatPriced.status).toBe(422);
    expect(seatPriced.json.detail[0].loc).toEqual(['body', 'prices', 0, 'amount_type']);
  });
});
