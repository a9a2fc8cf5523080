import type { BenefitListWire } from '../../../core/benefits/schemas.js';
import type { Invocation } from '../../action.js';
import { call, resolveOrg, signedIn } from '../../context.js';
import { UsageError } from '../../errors.js';
import { printJson, printTable } from '../../output.js';

interface Options {
  type?: string[];
  query?: string;
  org?: string;
  page?: string;
  limit?: string;
  json?: boolean;
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  const params = new URLSearchParams();
  for (const type of opts.type ?? []) params.append('type', type);
  if (opts.query !== undefined) params.set('query', opts.query);
  for (const [flag, value] of [['--page', opts.page], ['--limit', opts.limit]] as const) {
    if (value !== undefined && !/^[1-9]\d*$/.test(value)) throw new UsageError(`${flag} takes a positive whole number (got "${value}")`);
  }
  if (opts.page !== undefined) params.set('page', opts.page);
  if (opts.limit !== undefined) params.set('limit', opts.limit);
  const target = signedIn(globals);
  if (opts.org !== undefined) params.set('organization_id', (await resolveOrg(target, opts.org)).id);
  const query = params.toString() ? `?${params}` : '';
  const page = await call<BenefitListWire>(target, 'GET', `/v1/benefits/${query}`);
  if (opts.json) {
    printJson(page);
    return;
  }
  printTable(
    ['ID', 'TYPE', 'DESCRIPTION', 'VISIBILITY', 'CREATED'],
    page.items.map((benefit) => [benefit.id, benefit.type, benefit.description, benefit.visibility, benefit.created_at]),
  );
}
