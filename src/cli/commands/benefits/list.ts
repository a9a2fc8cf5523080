import type { BenefitWire } from '../../../core/benefits/schemas.js';
import type { Invocation } from '../../action.js';
import { printJson, printTable } from '../../output.js';
import { type TypedListOptions, typedListPage } from '../../pages.js';

export async function run({ opts, globals }: Invocation<TypedListOptions & { json?: boolean }>): Promise<void> {
  const page = await typedListPage<BenefitWire>(globals, '/v1/benefits/', opts);
  if (opts.json) {
    printJson(page);
    return;
  }
  printTable(
    ['ID', 'TYPE', 'DESCRIPTION', 'VISIBILITY', 'CREATED'],
    page.items.map((benefit) => [
      benefit.id,
      benefit.type,
      benefit.description,
      benefit.visibility,
      benefit.created_at,
    ]),
  );
}
