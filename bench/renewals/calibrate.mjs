// How fast this machine runs a fixed piece of JavaScript right now: the daemon's main thread is what bounds the
// renewals' rate, and the shared machines this runs on change speed by a fifth within minutes, so a rate is read
// beside this figure. Serializes and parses a webhook-sized object (about 3 kB) for a second, after a warm-up, in a
// process of its own; prints the rounds per second.
//   node bench/renewals/calibrate.mjs [milliseconds]
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

function payload(i) {
  const price = { id: `price-${i}`, amount_type: 'fixed', price_amount: 1000 + i, price_currency: 'usd' };
  return {
    id: `order-${i}`,
    created_at: new Date(1_800_000_000_000 + i).toISOString(),
    status: 'paid',
    amounts: { subtotal: 1000 + i, discount: 0, tax: 200, total: 1200 + i },
    customer: { id: `customer-${i}`, email: `buyer${i}@example.com`, name: 'A Buyer', metadata: { plan: 'pro' } },
    product: {
      id: `product-${i % 7}`,
      name: 'Monthly plan',
      description: 'Everything, every month. '.repeat(8),
      prices: [price, { ...price, id: `price-${i}-b` }],
      benefits: Array.from({ length: 4 }, (_, b) => ({ id: `benefit-${b}`, type: 'custom', description: 'Perk' })),
    },
    items: Array.from({ length: 3 }, (_, n) => ({ label: `Line ${n}`, amount: 100 * n, tax_amount: 20 * n })),
  };
}

export function rounds(milliseconds) {
  let count = 0;
  let sink = 0;
  const until = performance.now() + milliseconds;
  while (performance.now() < until) {
    for (let i = 0; i < 50; i++, count++) {
      const text = JSON.stringify(payload(count));
      sink += JSON.parse(text).amounts.total + createHash('sha256').update(text).digest()[0];
    }
  }
  if (sink === -1) process.stdout.write('');
  return count / (milliseconds / 1000);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const milliseconds = Number(process.argv[2]) || 1000;
  rounds(200);
  process.stdout.write(`${Math.round(rounds(milliseconds))}\n`);
}
