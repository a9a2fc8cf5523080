import type { Command } from 'commander';
import { lazy, withJson } from '../../action.js';

const list = (value: string, previous: string[] = []) => [
  ...previous,
  ...value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean),
];

export function registerListenCommand(program: Command): void {
  withJson(
    program
      .command('listen')
      .description("forward the organization's events to a local URL as signed webhooks, as they happen (Ctrl-C stops)")
      .requiredOption('--forward-to <url>', 'where each event is POSTed, e.g. http://localhost:3000/webhooks')
      .option(
        '--events <types>',
        'only these event types (comma-separated or repeated), e.g. order.paid,subscription.canceled',
        list,
      )
      .option('--org <id|slug>', 'organization (default: the active one, or your only one)')
      .option(
        '--secret <whsec>',
        'sign with this secret instead of a new one (to keep your app configured between runs)',
      ),
  )
    .addHelpText(
      'after',
      `
The daemon streams events (GET /v1/webhooks/events/stream); each is POSTed to --forward-to with Standard Webhooks
headers (webhook-id, webhook-timestamp, webhook-signature) signed with the secret printed at start, so your
handler verifies it exactly as it will in production. One line per delivery; --json prints one JSON object each.
The stream resumes after a dropped connection without losing events.`,
    )
    .action(lazy(async () => (await import('./run.js')).run));
}
