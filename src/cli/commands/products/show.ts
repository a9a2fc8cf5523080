import type { ProductWire } from '../../../core/products/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { printJson, printLine } from '../../output.js';
import { billing, describePrice } from './shared.js';

export async function run({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const product = await call<ProductWire>(
    signedIn(globals),
    'GET',
    `/v1/products/${encodeURIComponent(String(args[0]))}`,
  );
  if (opts.json) {
    printJson(product);
    return;
  }
  const lines: Array<[string, string]> = [
    ['id', product.id],
    ['name', product.name],
    ['description', product.description ?? ''],
    ['billing', billing(product)],
    ['archived', product.is_archived ? 'yes' : 'no'],
    ['visibility', product.visibility],
    ['organization', product.organization_id],
    ['created', product.created_at],
    ...product.prices.map((price): [string, string] => ['price', `${describePrice(price)} (${price.id})`]),
    ...product.benefits.map((benefit): [string, string] => [
      'benefit',
      `${benefit.description} (${benefit.type}, ${benefit.id})`,
    ]),
    ...product.medias.map((media): [string, string] => ['media', `${media.name} (${media.id})`]),
    ...product.attached_custom_fields.map((field): [string, string] => [
      'custom field',
      `${field.custom_field.name}${field.required ? ', required' : ''} (${field.custom_field_id})`,
    ]),
    ...Object.entries(product.metadata).map(([key, value]): [string, string] => [
      'metadata',
      `${key}=${String(value)}`,
    ]),
  ];
  for (const [label, value] of lines) printLine(`${label.padEnd(13)}${value}`);
}
