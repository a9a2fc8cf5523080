import type { CustomFieldWire } from '../../../core/custom-fields/schemas.js';
import type { Invocation } from '../../action.js';
import { printJson, printTable } from '../../output.js';
import { type TypedListOptions, typedListPage } from '../../pages.js';

export async function run({ opts, globals }: Invocation<TypedListOptions & { json?: boolean }>): Promise<void> {
  const page = await typedListPage<CustomFieldWire>(globals, '/v1/custom-fields/', opts);
  if (opts.json) {
    printJson(page);
    return;
  }
  printTable(
    ['ID', 'TYPE', 'SLUG', 'NAME', 'CREATED'],
    page.items.map((field) => [field.id, field.type, field.slug, field.name, field.created_at]),
  );
}
