import type { Invocation } from '../../action.js';
import { signedIn } from '../../context.js';
import { UsageError } from '../../errors.js';
import { createHttpData } from '../../tui/revenue-dashboard/data.js';
import { initialView } from '../../tui/revenue-dashboard/model.js';

export const NO_TERMINAL =
  'dashboard needs a terminal (stdin and stdout); in scripts use `till metrics --json` (and `till orders list --json`, `till subscriptions list --status past_due --json`) instead';

export async function run({ opts, globals }: Invocation<{ org?: string }>): Promise<void> {
  // Checked before anything is loaded or asked: a script that calls this gets a usage error at once, not a
  // screen nobody can answer.
  if (!process.stdin.isTTY || !process.stdout.isTTY) throw new UsageError(NO_TERMINAL);
  const target = signedIn(globals);
  const data = createHttpData(target, opts.org);
  // The first load happens before the screen takes over, so "not signed in" or "no such organization" end the
  // command with the usual message and exit code instead of a screen showing only an error.
  const initial = await data.load(initialView.window);
  // Ink and React load only here, for this command alone (tests/cli/help.test.ts keeps the others free of them).
  const { showDashboard } = await import('../../tui/revenue-dashboard/index.js');
  await showDashboard(data, initial);
}
