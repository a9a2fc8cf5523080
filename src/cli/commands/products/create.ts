import type { ProductWire } from '../../../core/products/schemas.js';
import type { Invocation } from '../../action.js';
import { call, createIn, signedIn } from '../../context.js';
import { UsageError } from '../../errors.js';
import { parseTypedMetadata } from '../../metadata.js';
import { info, printJson, printLine } from '../../output.js';
import {
  attachedFields,
  billing,
  currencyOf,
  priceBody,
  priceChoice,
  priceSummary,
  recurringOf,
  type PriceChoice,
  type PriceOptions,
} from './shared.js';

interface Options extends PriceOptions {
  name?: string;
  description?: string;
  recurring?: string;
  intervalCount?: string;
  metadata?: string[];
  benefit?: string[];
  media?: string[];
  field?: string[];
  org?: string;
  quiet?: boolean;
  json?: boolean;
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  // Flags are checked before anything is asked, so a typo fails at once even at a terminal.
  const currency = currencyOf(opts);
  const recurring = recurringOf(opts.recurring);
  const metadata = parseTypedMetadata(opts.metadata);
  const fields = attachedFields(opts.field);
  let name = opts.name;
  let price: PriceChoice | null = priceChoice(opts);
  if (opts.intervalCount !== undefined && !/^[1-9]\d*$/.test(opts.intervalCount))
    throw new UsageError(`--interval-count takes a positive whole number (got "${opts.intervalCount}")`);
  if (opts.intervalCount !== undefined && !recurring) throw new UsageError('--interval-count needs --recurring');
  const incomplete = name === undefined || price === null;
  if (incomplete && (!process.stdin.isTTY || !process.stdout.isTTY)) {
    const missing = [name === undefined && '--name', price === null && 'a price (--price, --custom-price or --free)']
      .filter(Boolean)
      .join(' and ');
    throw new UsageError(`missing ${missing}; stdin or stdout is not a terminal, so nothing is asked`);
  }
  const target = signedIn(globals);
  if (incomplete) {
    // Ink and React load only on this path (tests/cli/help.test.ts keeps every other path free of them).
    const { askProduct } = await import('../../tui/product-form/index.js');
    const answers = await askProduct({ name, price: price ?? undefined, currency });
    name = answers.name;
    price = answers.price;
  }

  const body: Record<string, unknown> = { name, prices: [priceBody(price!, currency)] };
  if (opts.description !== undefined) body.description = opts.description;
  if (recurring) {
    body.recurring_interval = recurring;
    if (opts.intervalCount !== undefined) body.recurring_interval_count = Number(opts.intervalCount);
  }
  if (metadata) body.metadata = metadata;
  if (opts.media) body.medias = opts.media;
  if (fields.length > 0) body.attached_custom_fields = fields;
  await createIn(target, body, opts);
  let product = await call<ProductWire>(target, 'POST', '/v1/products/', { body });
  if (opts.benefit?.length) {
    product = await call<ProductWire>(target, 'POST', `/v1/products/${encodeURIComponent(product.id)}/benefits`, {
      body: { benefits: opts.benefit },
    });
  }
  if (opts.json) {
    printJson(product);
    return;
  }
  printLine(product.id);
  if (opts.quiet) return;
  info(`Created product "${product.name}" (${billing(product)}, ${priceSummary(product)}).`);
}
