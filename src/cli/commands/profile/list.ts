import type { Invocation } from '../../action.js';
import { DEFAULT_PROFILE, configPath, readConfig } from '../../config.js';
import { DEFAULT_URL } from '../../context.js';
import { printJson, printTable } from '../../output.js';

export async function run({ opts }: Invocation<{ json?: boolean }>): Promise<void> {
  const config = readConfig(configPath());
  const current = config.currentProfile ?? DEFAULT_PROFILE;
  // Tokens are never listed; whether one is stored is all anyone needs to see here.
  const rows = Object.entries(config.profiles).map(([name, profile]) => ({
    name,
    current: name === current,
    url: profile.url ?? DEFAULT_URL,
    email: profile.email ?? null,
    signedIn: Boolean(profile.token),
  }));
  if (opts.json) {
    printJson(rows);
    return;
  }
  printTable(
    ['NAME', 'CURRENT', 'URL', 'EMAIL', 'SIGNED IN'],
    rows.map((row) => [row.name, row.current ? '*' : '', row.url, row.email ?? '', row.signedIn ? 'yes' : 'no']),
  );
}
