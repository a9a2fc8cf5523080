import { describe, expect, it } from 'vitest';
import { dialect } from '../../src/core/database/index.js';
import { onEventsCommitted } from '../../src/core/kernel/outbox.js';
import { onSqliteCalls } from '../../src/core/database/index.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';
import { createDiscount, createProduct } from '../helpers/catalog.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';

/**
 * On SQLite every sqlite3 call holds the one connection and is a trip to the thread pool and back, so trips per
 * purchase are what a purchase costs (issue 7's benchmark). These tests pin the write path of create and confirm
 * statement by statement: a new read-back or an extra round trip shows up here as a diff. Statements that share a trip
 * are shown joined by ` + `: on SQLite those of one call (a transaction's last writes go with its COMMIT, see
 * finishWith) and calls sent while another of their transaction was still running; on PostgreSQL statements sent
 * while another of their transaction was still running. Counts only, never timings.
 */
const daemon = useTestDaemon();
const email = () => `buyer-${Math.random().toString(36).slice(2, 10)}@example.com`;

// The webhook, mail, reconciler and scheduler workers run in the same process and interleave their own statements
// (the scheduler woken by the checkout's expiry job); they are not the purchase's. Nor are the sandbox processor's
// records of its charges: a real processor keeps them in its own database.
const BACKGROUND =
  /\b(webhook_\w+|outbox_marks|outbox_pending|mails|sandbox_processor_records)\b|\b(from|update)\s+[`"]?(outbox_events|scheduled_jobs)\b|\bin \(select [`"]id[`"] from [`"](checkouts|refunds)[`"]/i;
// Catalog, organization and token reads are served by caches once warm; when one misses it is not a write-path cost.
const CACHED =
  /^select .* from [`"](organization_access_tokens|products|product_prices|product_benefits|product_medias|product_custom_fields|organizations|custom_fields|benefits|files)[`"]/;

const CONTROL = /^(begin|commit|rollback|savepoint|release savepoint)/i;

/** One trip: its statements, and the transaction it belongs to (undefined outside one). */
interface Trip {
  statements: string[];
  tx: string | undefined;
}

interface QueryEvent {
  sql: string;
  __knexTxId?: string;
  __knexQueryUid?: string;
}

/**
 * The trips `action` caused, each as `verb table` (or several joined by ` + `), without the background workers' and
 * without cached catalog reads.
 */
async function statementsOf(action: () => Promise<void>): Promise<string[]> {
  const trips = dialect(daemon().core.db) === 'sqlite' ? await sqliteCallsOf(action) : await knexQueriesOf(action);
  // A transaction is the purchase's when it ran a statement of the purchase: a worker's may have logged only its
  // BEGIN before `action` ended.
  const all = trips.flatMap((trip) => trip.statements.map((sql) => ({ sql, tx: trip.tx })));
  const ours = new Set(
    all.filter((entry) => entry.tx && !BACKGROUND.test(entry.sql) && !CONTROL.test(entry.sql)).map((entry) => entry.tx),
  );
  for (const entry of all) if (entry.tx && BACKGROUND.test(entry.sql)) ours.delete(entry.tx);
  return trips
    .map((trip) =>
      trip.statements.filter((sql) => (trip.tx ? ours.has(trip.tx) : !BACKGROUND.test(sql)) && !CACHED.test(sql)),
    )
    .filter((statements) => statements.length > 0)
    .map((statements) => statements.map(describeStatement).join(' + '));
}

/** SQLite: each sqlite3 call, as the driver got it; a transaction runs from the call with BEGIN to the one ending it. */
async function sqliteCallsOf(action: () => Promise<void>): Promise<Trip[]> {
  const trips: Trip[] = [];
  let tx: string | undefined;
  let count = 0;
  const stop = onSqliteCalls((call) => {
    const statements = call.statements.map((sql) => sql.trim());
    const ends = statements.some((sql) => /^(commit|rollback)\s*;?$/i.test(sql));
    if (statements.some((sql) => /^begin\b/i.test(sql))) tx = `tx${++count}`;
    // The end of a transaction that began before `action`: a worker's, like everything it sent.
    else if (ends && !tx) tx = 'earlier';
    const previous = trips.at(-1);
    if (call.joined && previous && previous.tx && previous.tx === tx) previous.statements.push(...statements);
    else trips.push({ statements, tx });
    if (ends) tx = undefined;
  });
  try {
    await action();
  } finally {
    stop();
  }
  return trips;
}

/** PostgreSQL: knex's queries; one sent while another of its transaction was still running shares its trip. */
async function knexQueriesOf(action: () => Promise<void>): Promise<Trip[]> {
  const db = daemon().core.db;
  const trips: Trip[] = [];
  const running = new Map<string, Set<string>>();
  const started = (query: QueryEvent) => {
    const tx = query.__knexTxId;
    const inFlight = tx ? (running.get(tx) ?? running.set(tx, new Set()).get(tx)!) : null;
    const previous = trips.findLast((trip) => trip.tx === tx);
    if (inFlight && inFlight.size > 0 && previous) previous.statements.push(query.sql.trim());
    else trips.push({ statements: [query.sql.trim()], tx });
    if (inFlight && query.__knexQueryUid) inFlight.add(query.__knexQueryUid);
  };
  const ended = (_result: unknown, query: QueryEvent) => {
    if (query.__knexTxId && query.__knexQueryUid) running.get(query.__knexTxId)?.delete(query.__knexQueryUid);
  };
  db.on('query', started).on('query-response', ended).on('query-error', ended);
  try {
    await action();
  } finally {
    db.removeListener('query', started).removeListener('query-response', ended).removeListener('query-error', ended);
  }
  return trips;
}

function describeStatement(sql: string): string {
  const lower = sql.toLowerCase();
  if (CONTROL.test(lower)) return lower.replace(/;$/, '').replace(/ trx\d+$/, '');
  if (lower.startsWith('pragma')) return `pragma ${/pragma\s+(\w+)/.exec(lower)?.[1]}`;
  const table = /(?:into|update|from)\s+[`"]?(\w+)/.exec(lower)?.[1];
  return `${lower.split(/\s+/)[0]} ${table}`;
}

async function buy(merchant: Merchant, productId: string, customerEmail: string) {
  let checkout: { id: string; client_secret: string } | undefined;
  const create = await statementsOf(async () => {
    const created = await merchant.api.post('/v1/checkouts/', { products: [productId] });
    expect(created.status, created.text).toBe(201);
    checkout = created.json;
  });
  let confirmed: Record<string, unknown> | undefined;
  const confirm = await statementsOf(async () => {
    const response = await new TestClient(daemon().url).post(
      `/v1/checkouts/client/${checkout!.client_secret}/confirm`,
      { customer_email: customerEmail, customer_billing_address: { country: 'DE' }, confirmation_token_id: 'tok_visa' },
    );
    expect(response.status, response.text).toBe(200);
    confirmed = response.json;
  });
  // The purchase's grant job, due at once, runs now rather than inside the next purchase's measurements.
  await daemon().core.scheduler.drain();
  return { checkout: checkout!, confirmed: confirmed!, create, confirm };
}

async function eventsOf(organizationId: string): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
  const rows = await daemon().core.db('outbox_events').where({ organization_id: organizationId }).orderBy('id');
  // The catalog's own events (product.created …) are not the purchase's.
  return rows
    .filter((row: { type: string }) => !/^(product|discount|benefit)\./.test(row.type))
    .map((row: { type: string; payload: string }) => ({ type: row.type, data: JSON.parse(row.payload) }));
}

const sqlite = () => dialect(daemon().core.db) === 'sqlite';
/** Creating a checkout: on SQLite one call, BEGIN and COMMIT included (a write-only transaction). */
/** The metrics rollups' hourly and daily buckets, written with the events (metrics/rollups.ts). */
const ROLLUP_BUCKETS = 'insert metrics_buckets + insert metrics_days';
/** Creation writes the checkout, its expiry job (scheduler), its event and its count in the rollups, sent together. */
const create = () =>
  sqlite()
    ? [`begin + insert checkouts + insert scheduled_jobs + insert outbox_events + ${ROLLUP_BUCKETS} + commit`]
    : ['begin', `insert checkouts + insert scheduled_jobs + insert outbox_events + ${ROLLUP_BUCKETS}`, 'commit'];
/** The race for the checkout (open → confirmed, see confirm.ts): on SQLite one call, guarded writes and all. */
const race = (discounted = false) => {
  const writes = `update checkouts + insert outbox_events${discounted ? ' + update discounts' : ''}`;
  return sqlite() ? [`begin + ${writes} + commit`] : ['begin', writes, 'commit'];
};
/** The fulfilment's last writes, parents first, then the rollup rows and the grant job; on SQLite with the COMMIT. */
const lastWrites = (parents: string) => {
  const writes = `${parents} + update checkouts + insert order_items + insert customer_sessions + insert payment_attempts + insert outbox_events + insert metrics_source_deltas + ${ROLLUP_BUCKETS} + insert scheduled_jobs`;
  return sqlite() ? [`${writes} + commit`] : [writes, 'commit'];
};

/**
 * The fulfilment's start: on SQLite the invoice number is taken in its first trip, with the customer; on PostgreSQL
 * in a statement of its own before it (see allocateInvoiceNumber).
 */
function fulfilmentStart(customerTrip: string): string[] {
  return sqlite()
    ? ['begin', customerTrip.replace('insert customers', 'insert customers + insert invoice_counters')]
    : ['insert invoice_counters', 'begin', customerTrip];
}

describe('statements of one purchase', () => {
  it('a one-time product bought by a new customer: 1 trip to create and 6 to confirm on SQLite (3 and 10 on PostgreSQL)', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    await buy(merchant, product.id, email()); // warms the caches

    const bought = await buy(merchant, product.id, email());
    expect(bought.create).toEqual(create());
    expect(bought.confirm).toEqual([
      'select checkouts',
      // the billing country every paid confirmation carries (confirm.ts) prices its tax
      'select tax_rates',
      ...race(),
      ...fulfilmentStart('insert customers'),
      // PostgreSQL: a new customer moves the organization's stored change mark (database/change-marks.ts)
      ...(sqlite() ? [] : ['insert change_marks']),
      ...lastWrites('insert orders'),
    ]);
  });

  it('a subscription bought by a returning customer reads only them, their other subscriptions and grants, and their default card', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant, { recurring_interval: 'month' });
    const customerEmail = email();
    await buy(merchant, product.id, customerEmail);

    const { confirm } = await buy(merchant, product.id, customerEmail);
    expect(confirm.slice(2 + race().length)).toEqual([
      ...fulfilmentStart('insert customers'), // does nothing: the customer exists
      'select customers',
      // their state (subscriptions, grants and meters), and whether they have a default card already (read together)
      'select subscriptions + select payment_methods + select benefit_grants + select meter_totals',
      ...lastWrites('insert payment_methods + insert subscriptions + insert scheduled_jobs + insert orders'),
    ]);
  });
});

describe('waking the webhook worker', () => {
  it('happens once per committed transaction, not once per event', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant, { recurring_interval: 'month' });
    let wakes = 0;
    const stop = onEventsCommitted(() => wakes++);
    try {
      await buy(merchant, product.id, email());
      // checkout.created; checkout.updated (confirmed); the fulfilment's seven events
      expect(wakes).toBe(3);
      expect(await eventsOf(merchant.organization.id)).toHaveLength(9);
    } finally {
      stop();
    }
  });
});

describe('statements of a discounted purchase', () => {
  it('reads the discount once to price it, once in the race, once for the fulfilment, and redeems it in the race', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    const discount = await createDiscount(merchant, { code: 'TENOFF' });
    const created = await merchant.api.post('/v1/checkouts/', { products: [product.id], discount_id: discount.id });
    expect(created.status, created.text).toBe(201);
    let response: { status: number; json: Record<string, unknown> } | undefined;
    const confirm = await statementsOf(async () => {
      response = await new TestClient(daemon().url).post(`/v1/checkouts/client/${created.json.client_secret}/confirm`, {
        customer_email: email(),
        customer_billing_address: { country: 'DE' },
        confirmation_token_id: 'tok_visa',
      });
    });
    expect(response!.status).toBe(200);
    expect(response!.json.discount).toMatchObject({ id: discount.id, redemptions_count: 1 });
    expect(confirm.filter((trip) => / discount/.test(trip))).toEqual([
      'select discounts',
      'select discount_products',
      'select discounts',
      'select discount_products',
      // the event shows the discount as it was before; the redemption rides with the checkout's change
      ...race(true).filter((trip) => / discount/.test(trip)),
      'select discounts',
      'select discount_products',
    ]);
  });
});

describe('events built without reading back', () => {
  it('equal what the API reads afterwards, in delivery order, with one state_changed', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant, { recurring_interval: 'month' });
    const customerEmail = email();
    const first = await buy(merchant, product.id, customerEmail);
    const afterFirst = (await eventsOf(merchant.organization.id)).length;
    const second = await buy(merchant, product.id, customerEmail);
    const events = await eventsOf(merchant.organization.id);

    const confirmEvents = (from: number, to?: number) =>
      events.slice(from, to).filter((event) => event.type !== 'checkout.created');
    const firstEvents = confirmEvents(0, afterFirst);
    expect(firstEvents.map((event) => event.type)).toEqual([
      'checkout.updated',
      'customer.created',
      'order.created',
      'subscription.created',
      'subscription.active',
      'order.paid',
      'customer.state_changed',
      'checkout.updated',
    ]);
    // The returning customer's details did not change: no customer.updated.
    expect(confirmEvents(afterFirst).map((event) => event.type)).toEqual([
      'checkout.updated',
      'order.created',
      'subscription.created',
      'subscription.active',
      'order.paid',
      'customer.state_changed',
      'checkout.updated',
    ]);

    const api = merchant.api;
    const byType = (list: typeof events, type: string) => list.find((event) => event.type === type)!.data;
    const customerId = second.confirmed.customer_id as string;
    expect(byType(firstEvents, 'customer.created')).toEqual((await api.get(`/v1/customers/${customerId}`)).json);
    const lastState = events.filter((event) => event.type === 'customer.state_changed').at(-1)!.data;
    expect(lastState).toEqual((await api.get(`/v1/customers/${customerId}/state`)).json);
    expect((lastState.active_subscriptions as unknown[]).length).toBe(2);

    const secondEvents = confirmEvents(afterFirst);
    const order = byType(secondEvents, 'order.paid');
    expect(order).toEqual((await api.get(`/v1/orders/${order.id}`)).json);
    expect(byType(secondEvents, 'order.created')).toEqual(order);
    const subscription = byType(secondEvents, 'subscription.created');
    expect(subscription).toEqual((await api.get(`/v1/subscriptions/${subscription.id}`)).json);
    expect(secondEvents.at(-1)!.data).toEqual((await api.get(`/v1/checkouts/${second.checkout.id}`)).json);
    expect(first.confirmed.status).toBe('confirmed');
  });
});

describe('find or create without a savepoint', () => {
  it('gives concurrent purchases by one e-mail address one customer, created once', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    const customerEmail = email();
    const checkouts = [];
    for (let i = 0; i < 8; i++)
      checkouts.push(
        (await merchant.api.post('/v1/checkouts/', { products: [product.id] })).json as { client_secret: string },
      );
    const buyer = new TestClient(daemon().url);
    const responses = await Promise.all(
      checkouts.map((checkout) =>
        buyer.post(`/v1/checkouts/client/${checkout.client_secret}/confirm`, {
          customer_email: customerEmail,
          customer_billing_address: { country: 'DE' },
          confirmation_token_id: 'tok_visa',
        }),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(checkouts.map(() => 200));
    const customers = await daemon()
      .core.db('customers')
      .where({ organization_id: merchant.organization.id, email: customerEmail });
    expect(customers).toHaveLength(1);
    expect(new Set(responses.map((response) => response.json.customer_id))).toEqual(new Set([customers[0].id]));
    const created = (await eventsOf(merchant.organization.id)).filter((event) => event.type === 'customer.created');
    expect(created).toHaveLength(1);
  });
});

describe('a fulfilment that fails after the charge', () => {
  it('refunds the charge, fails the checkout, gives the discount back and keeps both attempts', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    const discount = await createDiscount(merchant, { code: 'BROKEN' });
    const created = await merchant.api.post('/v1/checkouts/', { products: [product.id], discount_id: discount.id });
    const checkoutId = created.json.id as string;
    const db = daemon().core.db;
    // The order insert of this one checkout fails, as a full disk or a lost connection would make it.
    if (daemon().database.dialect === 'postgres') {
      await db.raw(
        `CREATE FUNCTION fail_order() RETURNS trigger AS $$ BEGIN IF NEW.checkout_id = '${checkoutId}' THEN RAISE EXCEPTION 'boom'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
      );
      await db.raw('CREATE TRIGGER fail_order BEFORE INSERT ON orders FOR EACH ROW EXECUTE FUNCTION fail_order()');
    } else {
      await db.raw(
        `CREATE TRIGGER fail_order BEFORE INSERT ON orders WHEN NEW.checkout_id = '${checkoutId}' BEGIN SELECT RAISE(ABORT, 'boom'); END`,
      );
    }
    try {
      const response = await new TestClient(daemon().url).post(
        `/v1/checkouts/client/${created.json.client_secret}/confirm`,
        { customer_email: email(), customer_billing_address: { country: 'DE' }, confirmation_token_id: 'tok_visa' },
      );
      expect(response.status).toBe(500);
    } finally {
      await db.raw('DROP TRIGGER fail_order' + (daemon().database.dialect === 'postgres' ? ' ON orders' : ''));
      if (daemon().database.dialect === 'postgres') await db.raw('DROP FUNCTION fail_order()');
    }
    expect((await merchant.api.get(`/v1/checkouts/${checkoutId}`)).json).toMatchObject({
      status: 'failed',
      customer_id: null,
    });
    const attempts = await db('payment_attempts').where({ checkout_id: checkoutId }).orderBy('created_at');
    expect(attempts.map((row: { kind: string; status: string }) => `${row.kind} ${row.status}`).sort()).toEqual([
      'charge succeeded',
      'refund succeeded',
    ]);
    expect(await db('orders').where({ checkout_id: checkoutId })).toHaveLength(0);
    expect(Number((await db('discounts').where({ id: discount.id }).first()).redemptions_count)).toBe(0);
    const types = (await eventsOf(merchant.organization.id)).map((event) => event.type);
    expect(types).toEqual(['checkout.created', 'checkout.updated', 'checkout.updated']);
  });
});
