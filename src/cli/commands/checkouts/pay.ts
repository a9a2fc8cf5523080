import type { CheckoutPublicWire, CheckoutWire } from '../../../core/checkouts/schemas.js';
import { TEST_CARDS, testCardByNumber, testCardByToken } from '../../../core/payments/test-cards.js';
import type { Invocation } from '../../action.js';
import { call, resolveTarget, type Target } from '../../context.js';
import { CliError, UsageError } from '../../errors.js';
import { money } from '../../money.js';
import { info, printJson, printLine } from '../../output.js';

interface Options {
  card?: string;
  exp?: string;
  cvc?: string;
  token?: string;
  email?: string;
  name?: string;
  country?: string;
  json?: boolean;
}

const SANDBOX = 'sandbox';

/** The test card the flags name; the expiry and code are checked for shape only, as Stripe's test mode does. */
function chosenToken(opts: Options, now: Date): string {
  if (opts.card !== undefined && opts.token !== undefined) throw new UsageError('give --card or --token, not both');
  if (opts.exp !== undefined) {
    const match = /^(\d{1,2})\/(\d{2}|\d{4})$/.exec(opts.exp.trim());
    const month = match ? Number(match[1]) : 0;
    const year = match ? Number(match[2]!.length === 2 ? `20${match[2]}` : match[2]) : 0;
    if (!match || month < 1 || month > 12)
      throw new UsageError(`the card expiry (--exp) takes MM/YY, e.g. 12/34 (got "${opts.exp}")`);
    if (year * 12 + month < now.getUTCFullYear() * 12 + now.getUTCMonth() + 1)
      throw new UsageError(`the card expiry (--exp) is in the past: ${opts.exp}`);
  }
  if (opts.cvc !== undefined && !/^\d{3,4}$/.test(opts.cvc.trim()))
    throw new UsageError(`the card security code (--cvc) takes 3 or 4 digits (got "${opts.cvc}")`);
  const cards = TEST_CARDS.map((card) => `${card.number} (${card.token})`).join(', ');
  if (opts.token !== undefined) {
    if (!testCardByToken(opts.token))
      throw new UsageError(`the test token (--token) must be one of the sandbox's: ${cards} (got "${opts.token}")`);
    return opts.token;
  }
  if (opts.card !== undefined) {
    const card = testCardByNumber(opts.card);
    if (!card)
      throw new UsageError(
        `the card number (--card) must be a sandbox test card: ${cards}; real cards are never accepted here`,
      );
    return card.token;
  }
  throw new UsageError('give a test card: --card 4242424242424242, or --token tok_visa');
}

/** A checkout URL carries its client secret as the last path segment; anything else is taken as a checkout id. */
async function clientSecretOf(ref: string, target: Target): Promise<string> {
  const fromUrl = /\/checkout\/([^/?#]+)\/?(?:[?#].*)?$/.exec(ref);
  if (fromUrl) return decodeURIComponent(fromUrl[1]!);
  const checkout = await call<CheckoutWire>(target, 'GET', `/v1/checkouts/${encodeURIComponent(ref)}`);
  return checkout.client_secret;
}

export async function run({ args, opts, globals }: Invocation<Options>): Promise<void> {
  const token = chosenToken(opts, new Date());
  if (opts.country !== undefined && !/^[A-Za-z]{2}$/.test(opts.country))
    throw new UsageError(
      `the billing country (--country) takes a two-letter code such as US or DE (got "${opts.country}")`,
    );
  // A URL needs no sign-in (it is what a buyer has); an id is looked up with the merchant's session.
  const target = resolveTarget(globals);
  const secret = await clientSecretOf(String(args[0]), target);
  const path = `/v1/checkouts/client/${encodeURIComponent(secret)}`;
  const checkout = await call<CheckoutPublicWire>(target, 'GET', path, { auth: { kind: 'none' } });
  const processor = checkout.payment_processor_metadata.processor;
  if (processor !== SANDBOX)
    throw new CliError(
      `the daemon's payment processor is ${processor ?? 'not named'}, not the sandbox: \`till checkouts pay\` takes only test cards; pay through the checkout page (${checkout.url})`,
    );
  // Confirmation refuses a paid checkout without a billing country (tax is set by it); say which flag gives it.
  if (
    opts.country === undefined &&
    checkout.billing_address_fields.country === 'required' &&
    !checkout.customer_billing_address?.country
  )
    throw new UsageError('the checkout needs a billing country: give --country, e.g. --country DE');
  const body: Record<string, unknown> = { confirmation_token_id: token };
  if (opts.email !== undefined) body.customer_email = opts.email;
  if (opts.name !== undefined) body.customer_name = opts.name;
  if (opts.country !== undefined)
    body.customer_billing_address = { ...checkout.customer_billing_address, country: opts.country.toUpperCase() };
  const paid = await call<CheckoutPublicWire>(target, 'POST', `${path}/confirm`, { body, auth: { kind: 'none' } });
  if (opts.json) {
    printJson(paid);
    return;
  }
  printLine(paid.id);
  info(`Paid checkout ${paid.id}: ${money(paid.total_amount, paid.currency)} with ${token} (status ${paid.status}).`);
}
