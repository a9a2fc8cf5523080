import { render } from 'ink';
import type { RevenueData, Snapshot } from './data.js';
import { RevenueDashboard } from './dashboard.js';

export { RevenueDashboard } from './dashboard.js';

/** Takes over the terminal until the user quits; the caller has checked that stdin and stdout are terminals. */
export async function showDashboard(data: RevenueData, initial?: Snapshot): Promise<void> {
  const instance = render(<RevenueDashboard data={data} initial={initial} />);
  await instance.waitUntilExit();
}
