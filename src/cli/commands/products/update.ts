import type { ProductWire } from '../../../core/products/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { UsageError } from '../../errors.js';
import { parseTypedMetadata } from '../../metadata.js';
import { info, printJson } from '../../output.js';
import {
  attachedFields,
  billing,
  currencyOf,
  priceBody,
  priceChoice,
  priceSummary,
  type PriceOptions,
} from './shared.js';

interface Options extends PriceOptions {
  name?: string;
  description?: string;
  metadata?: string[];
  benefit?: string[];
  benefits?: boolean;
  media?: string[];
  field?: string[];
  fields?: boolean;
  unarchive?: boolean;
  json?: boolean;
}

export async function run({ args, opts, globals }: Invocation<Options>): Promise<void> {
  const id = encodeURIComponent(String(args[0]));
  const body: Record<string, unknown> = {};
  if (opts.name !== undefined) body.name = opts.name;
  if (opts.description !== undefined) body.description = opts.description === '' ? null : opts.description;
  const metadata = parseTypedMetadata(opts.metadata);
  if (metadata) body.metadata = metadata;
  const price = priceChoice(opts);
  // The new price replaces the current ones, which are archived (subscriptions on them keep them).
  if (price) body.prices = [priceBody(price, currencyOf(opts))];
  else if (opts.currency !== undefined) throw new UsageError('--currency goes with --price, --custom-price or --free');
  if (opts.media) body.medias = opts.media;
  if (opts.field && opts.fields === false) throw new UsageError('give --field or --no-fields, not both');
  if (opts.field || opts.fields === false) body.attached_custom_fields = attachedFields(opts.field);
  if (opts.unarchive) body.is_archived = false;
  if (opts.benefit && opts.benefits === false) throw new UsageError('give --benefit or --no-benefits, not both');
  const benefits = opts.benefits === false ? [] : opts.benefit;
  if (Object.keys(body).length === 0 && !benefits) {
    throw new UsageError(
      'nothing to change: give --name, --description, --metadata, a price, --media, --field, --no-fields, --benefit, --no-benefits or --unarchive',
    );
  }
  const target = signedIn(globals);
  let product: ProductWire | null = null;
  if (Object.keys(body).length > 0) product = await call<ProductWire>(target, 'PATCH', `/v1/products/${id}`, { body });
  if (benefits)
    product = await call<ProductWire>(target, 'POST', `/v1/products/${id}/benefits`, { body: { benefits } });
  if (opts.json) {
    printJson(product);
    return;
  }
  info(`Updated product "${product!.name}" (${billing(product!)}, ${priceSummary(product!)}).`);
}
