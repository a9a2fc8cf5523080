import type { Command } from 'commander';
import { lazy, withJson, withQuiet } from '../../action.js';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function registerCheckoutCommands(program: Command): void {
  const checkouts = program
    .command('checkouts')
    .description('create and show checkout sessions (Polar-compatible /v1/checkouts)');
  withQuiet(
    withJson(
      checkouts
        .command('create')
        .description('create a checkout session and print its URL, to send to a buyer')
        .requiredOption('--product <id>', 'a product to offer (repeatable; the first is preselected)', collect)
        .option('--price <id>', 'preselect this price of the product')
        .option('--discount <id>', 'apply this discount')
        .option('--email <email>', "the buyer's e-mail address")
        .option('--success-url <url>', 'where the buyer goes after paying ({CHECKOUT_ID} is replaced)'),
    ),
  )
    .addHelpText(
      'after',
      `
Prints the URL on stdout and the checkout id with a summary on stderr; -q prints only the id, --json the whole
checkout (id and url included).`,
    )
    .action(lazy(async () => (await import('./create.js')).run));
  withJson(checkouts.command('show').description('show one checkout session').argument('<id>', 'checkout id')).action(
    lazy(async () => (await import('./show.js')).run),
  );
  withJson(
    checkouts
      .command('pay')
      .description('pay an open checkout with a sandbox test card, as a buyer would (the sandbox processor only)')
      .argument('<id|url>', 'checkout id, or the checkout URL a buyer would open')
      .option('--card <number>', 'a sandbox test card number, e.g. 4242424242424242 (see below)')
      .option('--exp <MM/YY>', 'card expiry; any future month (the sandbox ignores it, as Stripe test mode does)')
      .option('--cvc <digits>', 'card security code, 3 or 4 digits (ignored by the sandbox)')
      .option('--token <token>', 'a Stripe-style test token instead of a number, e.g. tok_visa')
      .option('--email <email>', "the buyer's e-mail, when the checkout has none yet")
      .option('--name <name>', "the buyer's name")
      .option(
        '--country <code>',
        'billing country, ISO 3166-1 alpha-2 (e.g. US, DE); required to pay when the checkout has none',
      ),
  )
    .addHelpText(
      'after',
      `
Confirms the checkout through the public client API (POST /v1/checkouts/client/{client_secret}/confirm), like the
hosted page's Pay button. Refused unless the daemon's processor is the sandbox: real cards are never typed here.
Test cards: 4242424242424242 (tok_visa) and 5555555555554444 (tok_mastercard) succeed; 4000000000000002
(tok_chargeDeclined), 4000000000009995 (insufficient funds) and 4000000000009987 (lost card) are declined;
4000000000000341 (tok_chargeCustomerFail) pays now and declines every renewal.
Example: till checkouts pay "$(till checkouts create --product <id> -q)" --card 4242424242424242 --email a@b.example --country DE`,
    )
    .action(lazy(async () => (await import('./pay.js')).run));
}
