import type { Invocation } from '../../action.js';
import { actingOrg, signedIn } from '../../context.js';
import { UsageError } from '../../errors.js';
import { createHttpData } from '../../tui/webhooks-dashboard/data.js';

export const NO_TERMINAL =
  'webhooks dashboard needs a terminal (stdin and stdout); in scripts use `till webhooks deliveries --json` and `till webhooks endpoints list --json` instead';

export async function run({ opts, globals }: Invocation<{ org?: string; endpoint?: string }>): Promise<void> {
  // Checked before anything is loaded or asked: a script that calls this gets a usage error at once, not a
  // screen nobody can answer.
  if (!process.stdin.isTTY || !process.stdout.isTTY) throw new UsageError(NO_TERMINAL);
  const target = signedIn(globals);
  // The organization rule of every command: --org, else the active one, else the user's only one.
  const org = (await actingOrg(target, { org: opts.org }))?.id;
  const data = createHttpData(target, { org, endpoint: opts.endpoint });
  // The first load happens before the screen takes over, so "not signed in", an unknown --org or --endpoint end
  // the command with the usual message and exit code instead of a screen showing only an error.
  const initial = await data.load();
  // Ink and React load only here, for this command alone (tests/cli/help.test.ts keeps the others free of them).
  const { showDashboard } = await import('../../tui/webhooks-dashboard/index.js');
  await showDashboard(data, initial);
}
