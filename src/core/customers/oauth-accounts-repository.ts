import type { Db } from '../database/index.js';

export type PortalOAuthAccounts = Record<string, { account_id: string; account_username: string | null }>;

/**
 * The customer's connected GitHub and Discord accounts as the portal shows them (Polar's `oauth_accounts`, keyed by
 * platform). Only the public columns: the tokens stay with customer-accounts/, which writes these rows.
 */
export async function portalOAuthAccounts(db: Db, customerId: string): Promise<PortalOAuthAccounts> {
  const rows = (await db('customer_oauth_accounts')
    .where({ customer_id: customerId })
    .orderBy('platform')
    .select('platform', 'account_id', 'account_username')) as Array<Record<string, unknown>>;
  return Object.fromEntries(
    rows.map((row) => [
      String(row.platform),
      { account_id: String(row.account_id), account_username: (row.account_username as string | null) ?? null },
    ]),
  );
}
