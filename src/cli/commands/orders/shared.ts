import { call, resolveOrg, type Target } from '../../context.js';

/** Every page of a /v1 list: a list that silently stopped at 100 would mislead scripts. */
export async function fetchAll<T>(target: Target, path: string, query: URLSearchParams): Promise<T[]> {
  const items: T[] = [];
  query.set('limit', '100');
  for (let page = 1; ; page++) {
    query.set('page', String(page));
    const result = await call<{ items: T[]; pagination: { max_page: number } }>(target, 'GET', `${path}?${query}`);
    items.push(...result.items);
    if (page >= result.pagination.max_page) break;
  }
  return items;
}

/** `--org <id|slug>` as an organization_id filter. */
export async function orgFilter(target: Target, query: URLSearchParams, org: string | undefined): Promise<void> {
  if (org !== undefined) query.set('organization_id', (await resolveOrg(target, org)).id);
}

/** Minor units as a person reads them: 1234 usd → "12.34 USD". */
export function money(amount: number, currency: string): string {
  const sign = amount < 0 ? '-' : '';
  const abs = Math.abs(amount);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')} ${currency.toUpperCase()}`;
}

export function printFields(lines: Array<[string, string]>): void {
  const width = Math.max(...lines.map(([label]) => label.length)) + 2;
  for (const [label, value] of lines) process.stdout.write(`${`${label}:`.padEnd(width)}${value}\n`);
}
