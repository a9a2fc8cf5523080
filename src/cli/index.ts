import { once } from 'node:events';
import { Command, CommanderError } from 'commander';
import { registerAccountCommands } from './commands/account/index.js';
import { registerAccountsCommands } from './commands/accounts/index.js';
import { registerAdminCommands } from './commands/admin/index.js';
import { registerApiKeyCommands } from './commands/api-keys/index.js';
import { registerAuthCommands } from './commands/auth/index.js';
import { registerCustomerCommands } from './commands/customers/index.js';
import { registerEventCommands } from './commands/events/index.js';
import { registerMeterCommands } from './commands/meters/index.js';
import { registerBenefitCommands } from './commands/benefits/index.js';
import { registerGrantCommands } from './commands/grants/index.js';
import { registerLicenseKeyCommands } from './commands/license-keys/index.js';
import { registerDaemonCommands } from './commands/daemon/index.js';
import { registerDiscountCommands } from './commands/discounts/index.js';
import { registerEmailCommands } from './commands/email/index.js';
import { registerFieldCommands } from './commands/fields/index.js';
import { registerFilesCommands } from './commands/files/index.js';
import { registerLinkCommands } from './commands/links/index.js';
import { registerMailCommands } from './commands/mail/index.js';
import { registerClockCommands } from './commands/clock/index.js';
import { registerMigrateCommand } from './commands/migrate/index.js';
import { registerBackupCommands } from './commands/backup/index.js';
import { tillVersion } from '../core/kernel/version.js';
import { registerOrgCommands } from './commands/org/index.js';
import { registerPasswordCommands } from './commands/password/index.js';
import { registerProductCommands } from './commands/products/index.js';
import { registerProfileCommands } from './commands/profile/index.js';
import { registerSessionCommands } from './commands/sessions/index.js';
import { registerTeamCommands } from './commands/team/index.js';
import { registerTokenCommands } from './commands/tokens/index.js';
import { registerUserCommands } from './commands/user/index.js';
import { registerWebhookCommands } from './commands/webhooks/index.js';
import { registerListenCommand } from './commands/listen/index.js';
import { registerCheckoutCommands } from './commands/checkouts/index.js';
import { registerCompletionCommands } from './commands/completion/index.js';
import { registerOpenCommand } from './commands/open/index.js';
import { registerOrderCommands } from './commands/orders/index.js';
import { registerSubscriptionCommands } from './commands/subscriptions/index.js';
import { registerRefundCommands } from './commands/refunds/index.js';
import { registerMetricsCommand } from './commands/metrics/index.js';
import { registerDashboardCommand } from './commands/dashboard/index.js';
import { CliError, EXIT, NotSignedInError, UnreachableError, UsageError, errorJson } from './errors.js';

// This module registers commands and nothing else: every implementation is imported inside its action, so
// `till --help` loads commander and these few files, never undici, Knex, Koa, React or Ink.

const HELP_FOOTER = `
Environment:
  TILL_URL          daemon URL (overridden by --url; default: the profile's URL, else http://127.0.0.1:4100)
  TILL_TOKEN        session token or API key to use instead of the profile's (for CI: \`till api-keys create\`)
  TILL_PROFILE      profile to use (overridden by --profile; default: currentProfile in the config file)
  TILL_ADMIN_TOKEN  admin token for \`till admin\` (see \`till admin token --help\`)
  XDG_CONFIG_HOME   the config file is $XDG_CONFIG_HOME/till/config.json (default ~/.config/till), mode 0600

Exit codes:
  0  ok    1  failure (including errors from the daemon)    2  usage error    4  not signed in

Data goes to stdout (as JSON with --json); messages and errors go to stderr. With --json an error is one JSON
object on stderr, {"error": {"code", "message", "status", "detail"}} (status and detail are the daemon's when it
answered, else null), with the same exit code.

Lists print a table with a header row and aligned columns at a terminal; piped, each row is one line of
tab-separated fields without a header, for cut and awk (TILL_FORCE_TTY=1 forces the table).`;

function version(): string {
  return tillVersion();
}

export function buildProgram(jsonMode = false): Command {
  const program = new Command('till')
    .description('Till, the self-hosted selling platform: run the daemon and drive it over HTTP.')
    .version(version(), '-V, --version')
    .option('--url <url>', 'daemon URL (overrides TILL_URL and the profile)')
    .option('--profile <name>', 'config profile to use (overrides TILL_PROFILE)')
    // Set before any subcommand exists: subcommands copy these settings from their parent when created.
    .exitOverride()
    .showHelpAfterError(jsonMode ? false : '(add --help for usage)')
    // With --json, commander's own parse errors are reported as JSON by report(), not written as text here.
    .configureOutput(jsonMode ? { writeErr: () => undefined } : {})
    .addHelpText('after', HELP_FOOTER);

  registerDaemonCommands(program);
  registerMigrateCommand(program);
  registerBackupCommands(program);
  registerAuthCommands(program);
  registerSessionCommands(program);
  registerApiKeyCommands(program);
  registerTokenCommands(program);
  registerUserCommands(program);
  registerPasswordCommands(program);
  registerEmailCommands(program);
  registerAccountCommands(program);
  registerAccountsCommands(program);
  registerOrgCommands(program);
  registerBenefitCommands(program);
  registerGrantCommands(program);
  registerLicenseKeyCommands(program);
  registerFieldCommands(program);
  registerDiscountCommands(program);
  registerLinkCommands(program);
  registerTeamCommands(program);
  registerFilesCommands(program);
  registerProductCommands(program);
  registerCustomerCommands(program);
  registerEventCommands(program);
  registerMeterCommands(program);
  registerCheckoutCommands(program);
  registerOpenCommand(program);
  registerOrderCommands(program);
  registerSubscriptionCommands(program);
  registerRefundCommands(program);
  registerMetricsCommand(program);
  registerDashboardCommand(program);
  registerAdminCommands(program);
  registerMailCommands(program);
  registerClockCommands(program);
  registerProfileCommands(program);
  registerWebhookCommands(program);
  registerListenCommand(program);
  registerCompletionCommands(program);
  return program;
}

/** Whether --json was given as an option (not after `--`, where it would be an argument). */
function wantsJson(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).includes('--json');
}

/**
 * Whatever ended the command as a CliError. "Not signed in" is only true of a daemon that answers: one that does
 * not is reported as unreachable (exit 1) whatever the profile holds, since signing in would not help.
 */
async function explain(error: unknown): Promise<CliError> {
  if (error instanceof NotSignedInError && error.url) {
    const { unreachable } = await import('./client.js');
    const reason = await unreachable(error.url);
    return reason === null ? error : new UnreachableError(error.url, reason);
  }
  if (error instanceof CliError) return error;
  const message = error instanceof Error ? error.message : String(error);
  // Named, not imported: importing core's error classes here would load them for `till --help` too.
  if ((error as Error | undefined)?.name === 'ConfigError') return new UsageError(`invalid configuration: ${message}`);
  if (process.env.TILL_DEBUG && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  return new CliError(message);
}

/** Maps whatever ended the command to an exit code, saying why on stderr (as one JSON object with --json). */
async function report(error: unknown, json: boolean): Promise<number> {
  if (error instanceof CommanderError) {
    const ok = error.code === 'commander.helpDisplayed' || error.code === 'commander.version';
    // Commander has printed the help, version or (without --json) the parse error itself.
    if (json && !ok) {
      const message = error.message.replace(/^error: /, '');
      process.stderr.write(`${JSON.stringify(errorJson(new UsageError(message)))}\n`);
    }
    return ok ? EXIT.ok : EXIT.usage;
  }
  const explained = await explain(error);
  process.stderr.write(json ? `${JSON.stringify(errorJson(explained))}\n` : `till: ${explained.message}\n`);
  return explained.exitCode;
}

export async function main(argv: string[] = process.argv): Promise<number> {
  const json = wantsJson(argv);
  try {
    await buildProgram(json).parseAsync(argv);
    return Number(process.exitCode ?? EXIT.ok);
  } catch (error) {
    return report(error, json);
  }
}

const code = await main();
// Exiting explicitly ends idle keep-alive sockets at once instead of after their timeout; stdout is drained
// first so piped output is never cut short.
if (process.stdout.writableNeedDrain) await once(process.stdout, 'drain');
process.exit(code);
