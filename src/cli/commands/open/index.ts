import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

export function registerOpenCommand(program: Command): void {
  withJson(
    program
      .command('open')
      .description("print (or open in a browser) a checkout's hosted page or a customer's portal")
      .argument('<page>', 'checkout or portal')
      .argument('<id>', 'checkout id, or customer id for the portal')
      .option('--browser', 'open the page with the desktop browser (xdg-open, open or start) instead of printing it'),
  )
    .addHelpText(
      'after',
      `
A portal link is a fresh customer session (POST /v1/customer-sessions/): whoever holds it is signed in as that
customer until it expires, so send it to the customer only. Examples:
  till open checkout <checkout-id>
  till open portal <customer-id> --browser`,
    )
    .action(lazy(async () => (await import('./open.js')).run));
}
