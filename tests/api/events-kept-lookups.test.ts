import { describe, expect, it } from 'vitest';
import { testDialect } from '../helpers/database.js';
import { startTestDaemon, useTestDaemon } from '../helpers/daemon.js';
import { bearerClient, createCustomer, createMerchant, type Merchant } from '../helpers/v1.js';

// Ingestion keeps the customers its events name in memory (events/ingest-lookups.ts), and on SQLite the meters too;
// these are the changes that must reach the next batch at once. On PostgreSQL they must also reach a daemon that did
// not make them, which learns of them from the stored change mark.

const daemon = useTestDaemon();

function ingest(merchant: Merchant, events: unknown[]) {
  return merchant.api.post('/v1/events/ingest', { events });
}

async function storedCustomerIds(organizationId: string, name: string): Promise<Array<string | null>> {
  const rows = (await daemon()
    .core.db('events')
    .where({ organization_id: organizationId, name })
    .orderBy('seq')
    .select('customer_id')) as Array<{ customer_id: string | null }>;
  return rows.map((row) => row.customer_id);
}

describe('ingestion after a customer changes', () => {
  it('refuses the next batch for a customer deleted after its last one', async () => {
    const merchant = await createMerchant(daemon());
    const buyer = await createCustomer(merchant);
    expect((await ingest(merchant, [{ name: 'call', customer_id: buyer.id }])).status).toBe(200);
    expect((await merchant.api.call('DELETE', `/v1/customers/${buyer.id}`)).status).toBe(204);
    const refused = await ingest(merchant, [{ name: 'call', customer_id: buyer.id }]);
    expect(refused.status, refused.text).toBe(422);
    expect(refused.json.detail[0]).toMatchObject({
      loc: ['body', 'events', 0, 'customer_id'],
      msg: 'Customer not found.',
    });
    expect(await storedCustomerIds(merchant.organization.id, 'call')).toEqual([buyer.id]);
  });

  it('gives an external id its customer from the batch after a customer takes it', async () => {
    const merchant = await createMerchant(daemon());
    await ingest(merchant, [
      { name: 'seen', external_customer_id: 'late-1' },
      { name: 'seen', external_customer_id: 'late-2' },
    ]);
    const created = await createCustomer(merchant, 'late-1');
    const given = await createCustomer(merchant);
    const patched = await merchant.api.call('PATCH', `/v1/customers/${given.id}`, { body: { external_id: 'late-2' } });
    expect(patched.status, patched.text).toBe(200);
    await ingest(merchant, [
      { name: 'seen', external_customer_id: 'late-1' },
      { name: 'seen', external_customer_id: 'late-2' },
    ]);
    expect(await storedCustomerIds(merchant.organization.id, 'seen')).toEqual([null, null, created.id, given.id]);
  });

  it('answers each batch sent while the customer is deleted all or nothing, and refuses every batch sent after', async () => {
    const merchant = await createMerchant(daemon());
    const buyer = await createCustomer(merchant);
    const batch = Array.from({ length: 50 }, (_, i) => ({ name: 'race', customer_id: buyer.id, metadata: { i } }));
    const sent = Array.from({ length: 12 }, () => ingest(merchant, batch));
    const deleted = await merchant.api.call('DELETE', `/v1/customers/${buyer.id}`);
    expect(deleted.status).toBe(204);
    const answers = await Promise.all(sent);
    for (const answer of answers) expect([200, 422]).toContain(answer.status);
    const accepted = answers.filter((answer) => answer.status === 200).length;
    expect(await storedCustomerIds(merchant.organization.id, 'race')).toHaveLength(accepted * 50);
    const after = await Promise.all(Array.from({ length: 3 }, () => ingest(merchant, batch)));
    for (const answer of after) expect(answer.status, answer.text).toBe(422);
    expect(await storedCustomerIds(merchant.organization.id, 'race')).toHaveLength(accepted * 50);
  });
});

describe('customers named by external ids of any text', () => {
  it('finds each, quotes, backslashes, commas and braces included', async () => {
    const merchant = await createMerchant(daemon());
    const odd = ['a"b', 'c\\d', 'e,f', '{g}', "h'i", 'NULL'];
    const buyers = [];
    for (const externalId of odd) buyers.push(await createCustomer(merchant, externalId));
    const answer = await ingest(
      merchant,
      odd.map((externalId) => ({ name: 'odd', external_customer_id: externalId })),
    );
    expect(answer.status, answer.text).toBe(200);
    expect(await storedCustomerIds(merchant.organization.id, 'odd')).toEqual(buyers.map((buyer) => buyer.id));
  });
});

describe('customers of another organization', () => {
  it('refuses one named by id and never gives an event one named by its external id', async () => {
    const merchant = await createMerchant(daemon());
    const other = await createMerchant(daemon());
    const theirs = await createCustomer(other, 'shared-external');
    const mine = await createCustomer(merchant);
    const refused = await ingest(merchant, [
      { name: 'cross', customer_id: mine.id },
      { name: 'cross', customer_id: theirs.id },
    ]);
    expect(refused.status, refused.text).toBe(422);
    expect(refused.json.detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual([
      ['body', 'events', 1, 'customer_id'],
    ]);
    const pending = await ingest(merchant, [{ name: 'cross', external_customer_id: 'shared-external' }]);
    expect(pending.status, pending.text).toBe(200);
    expect(await storedCustomerIds(merchant.organization.id, 'cross')).toEqual([null]);
    expect(await storedCustomerIds(other.organization.id, 'cross')).toEqual([]);
  });
});

describe('customers changed through another daemon', () => {
  it.runIf(testDialect === 'postgres')(
    'PostgreSQL: refuses a customer deleted there and gives an external id the customer that took it there',
    async () => {
      const merchant = await createMerchant(daemon());
      const buyer = await createCustomer(merchant);
      const given = await createCustomer(merchant);
      expect((await ingest(merchant, [{ name: 'shared', customer_id: buyer.id }])).status).toBe(200);
      expect((await ingest(merchant, [{ name: 'shared', external_customer_id: 'taken-there' }])).status).toBe(200);
      const other = await startTestDaemon({ databaseUrl: daemon().database.url });
      try {
        const there = bearerClient(other, merchant.token);
        expect((await there.call('DELETE', `/v1/customers/${buyer.id}`)).status).toBe(204);
        const patched = await there.call('PATCH', `/v1/customers/${given.id}`, {
          body: { external_id: 'taken-there' },
        });
        expect(patched.status, patched.text).toBe(200);
      } finally {
        await other.stop();
      }
      const refused = await ingest(merchant, [{ name: 'shared', customer_id: buyer.id }]);
      expect(refused.status, refused.text).toBe(422);
      expect(refused.json.detail[0]).toMatchObject({ loc: ['body', 'events', 0, 'customer_id'] });
      expect((await ingest(merchant, [{ name: 'shared', external_customer_id: 'taken-there' }])).status).toBe(200);
      expect(await storedCustomerIds(merchant.organization.id, 'shared')).toEqual([buyer.id, null, given.id]);
    },
  );
});
