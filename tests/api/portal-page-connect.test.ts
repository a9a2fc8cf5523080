import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenefitStrategy } from '../../src/core/benefit-grants/strategies.js';
import { createProduct } from '../helpers/catalog.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { openPortal, portalSession } from '../helpers/portal.js';
import { purchase } from '../helpers/purchases.js';
import { createMerchant } from '../helpers/v1.js';

// A GitHub benefit waiting for the customer to connect an account: the portal links to the connect flow.

/** Stands for the GitHub strategy before the customer connected an account (as tests/api/grant-strategies does). */
const needsGithub: BenefitStrategy = {
  grant: () => Promise.resolve({ needsCustomerAction: 'Connect your GitHub account to receive this benefit.' }),
  revoke: ({ grant }) => Promise.resolve(grant.properties),
  update: ({ grant }) => Promise.resolve({ properties: grant.properties }),
};

let daemon: TestDaemon;
beforeAll(async () => {
  daemon = await startTestDaemon({}, { grantStrategies: { github_repository: needsGithub } });
});
afterAll(async () => {
  await daemon.stop();
});

describe('portal connect links', () => {
  it('shows "Connect GitHub" with the session token and the way back, for a grant waiting on the customer', async () => {
    const merchant = await createMerchant(daemon, { name: 'Repo Shop' });
    const benefit = await merchant.api.post('/v1/benefits/', {
      type: 'github_repository',
      description: 'Source access',
      properties: { repository_owner: 'acme', repository_name: 'app', permission: 'pull' },
    });
    expect(benefit.status, benefit.text).toBe(201);
    const product = await createProduct(merchant, { name: 'Source plan' });
    const attached = await merchant.api.post(`/v1/products/${product.id}/benefits`, { benefits: [benefit.json.id] });
    expect(attached.status, attached.text).toBe(200);
    const bought = await purchase(daemon, merchant, product.id);
    await daemon.core.scheduler.drain();
    const session = await portalSession(merchant, bought.customerId);
    const { client, path } = await openPortal(daemon, session.portalUrl);
    const page = await client.get(path);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Source access');
    const href = /<a href="([^"]+)">Connect GitHub<\/a>/.exec(page.text)?.[1]?.replaceAll('&amp;', '&');
    expect(href).toBeDefined();
    const url = new URL(href!);
    expect(url.origin + url.pathname).toBe(`${daemon.url}/v1/customer-portal/oauth-accounts/authorize`);
    expect(url.searchParams.get('platform')).toBe('github');
    expect(url.searchParams.get('customer_session_token')).toBe(session.token);
    expect(url.searchParams.get('return_to')).toBe(`${daemon.url}${path}`);
  });
});
