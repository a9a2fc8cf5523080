import { render } from 'ink';
import type { Snapshot, WebhooksData } from './data.js';
import { WebhooksDashboard } from './dashboard.js';

export { WebhooksDashboard } from './dashboard.js';

/** Takes over the terminal until the user quits; the caller has checked that stdin and stdout are terminals. */
export async function showDashboard(data: WebhooksData, initial?: Snapshot): Promise<void> {
  // exitOnCtrlC stays on: Ctrl+C leaves the screen the way people expect, whatever prompt is open.
  const instance = render(<WebhooksDashboard data={data} initial={initial} />);
  await instance.waitUntilExit();
}
