import { render } from 'ink';
import type { DashboardData, Snapshot } from './data.js';
import { OrgDashboard } from './dashboard.js';

export { OrgDashboard } from './dashboard.js';

/** Takes over the terminal until the user quits; the caller has checked that stdin and stdout are terminals. */
export async function showDashboard(data: DashboardData, initial?: Snapshot): Promise<void> {
  // exitOnCtrlC stays on: Ctrl+C leaves the screen the way people expect, whatever prompt is open.
  const instance = render(<OrgDashboard data={data} initial={initial} />);
  await instance.waitUntilExit();
}
